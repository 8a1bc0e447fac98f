import { HttpStatus } from '@nestjs/common';

/** `Not Found` for 404, from Nest's status names. */
export function statusTitle(status: number): string {
  const name = HttpStatus[status];
  if (typeof name !== 'string') return `HTTP ${status}`;
  const words = name.toLowerCase().split('_');
  return words.map((word, i) => (i === 0 ? word.charAt(0).toUpperCase() + word.slice(1) : word)).join(' ');
}
