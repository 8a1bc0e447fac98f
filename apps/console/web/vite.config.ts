import { defineConfig } from 'vite';

// The page is bundled next to the server (`dist/web`), which serves it: no CDN, works offline.
export default defineConfig({
  root: import.meta.dirname,
  base: '/',
  build: { outDir: '../dist/web', emptyOutDir: true, chunkSizeWarningLimit: 200 },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
});
