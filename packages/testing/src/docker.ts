import { connect } from 'node:net';

/** True when a Docker engine answers on DOCKER_HOST (unix socket) or the default socket. */
export async function dockerAnswers(): Promise<boolean> {
  const host = process.env['DOCKER_HOST'];
  const socketPath = host?.startsWith('unix://')
    ? host.slice('unix://'.length)
    : host
      ? undefined
      : '/var/run/docker.sock';
  if (!socketPath) return Boolean(host);
  return new Promise((resolve) => {
    const socket = connect({ path: socketPath });
    socket.setTimeout(500);
    socket.on('connect', () => socket.write('GET /_ping HTTP/1.0\r\n\r\n'));
    socket.on('data', (chunk) => {
      socket.destroy();
      resolve(chunk.toString().startsWith('HTTP/1.0 200') || chunk.toString().startsWith('HTTP/1.1 200'));
    });
    socket.on('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('error', () => resolve(false));
  });
}
