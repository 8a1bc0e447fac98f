import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Controller, Get, Header, Param, StreamableFile } from '@nestjs/common';
import { z } from 'zod';

/** The page, as `vite build` wrote it next to the server (`dist/web`). */
const WEB_DIR = fileURLToPath(new URL('../web/', import.meta.url));

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** Asset names as Vite writes them (`index-<hash>.js`): nothing else is served, so no path leaves the folder. */
export const AssetName = z.string().regex(/^[A-Za-z0-9_.-]+\.(js|css|svg)$/);

/** Serves the bundled page from this machine: no CDN, works offline. */
@Controller()
export class PageController {
  @Get()
  @Header('content-type', 'text/html; charset=utf-8')
  @Header('cache-control', 'no-store')
  index(): Promise<string> {
    return readFile(join(WEB_DIR, 'index.html'), 'utf8').catch(() => {
      throw new Error(`${WEB_DIR}index.html is missing: run \`pnpm build\` (it bundles the page)`);
    });
  }

  @Get('assets/:name')
  // Hashed names: a new build is a new name.
  @Header('cache-control', 'public, max-age=31536000, immutable')
  async asset(@Param('name', { schema: AssetName }) name: string): Promise<StreamableFile> {
    const body = await readFile(join(WEB_DIR, 'assets', name));
    // Sent as bytes, with its length, on either platform (Nest would write a returned Buffer as JSON).
    return new StreamableFile(body, { type: CONTENT_TYPES[extname(name)] ?? 'application/octet-stream' });
  }
}
