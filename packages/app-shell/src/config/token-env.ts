import { z } from 'zod';

// The token policy: what a credential read from the environment must look like. One rule for every token, so a
// token one service accepts is never refused by another.

/** Shortest `INTERNAL_TOKEN` (and `ADMIN_TOKEN`) accepted. */
export const MIN_INTERNAL_TOKEN_LENGTH = 32;

const TOKEN_CHARACTERS = new RegExp(`^[A-Za-z0-9\\-._~+/]{${MIN_INTERNAL_TOKEN_LENGTH},}$`);
const TOKEN_RULE = `at least ${MIN_INTERNAL_TOKEN_LENGTH} characters of [A-Za-z0-9-._~+/]`;

/**
 * `INTERNAL_TOKEN`: the credential the gateway and orders send to orders and payments. Required: a service without
 * one refuses to start rather than trust every caller.
 */
export function envInternalToken() {
  return z
    .string({
      error:
        'is required: the shared internal credential the gateway and orders send to orders and payments ' +
        `(${TOKEN_RULE}; e.g. \`openssl rand -hex 32\`)`,
    })
    .regex(TOKEN_CHARACTERS, `must be ${TOKEN_RULE}`);
}

/**
 * `ADMIN_TOKEN`: what every `/__*` route demands when set (`Authorization: Bearer <ADMIN_TOKEN>`); required with
 * `FAULTS_ENABLED=true` on a `HOST` that is not loopback.
 */
export function envAdminToken() {
  return z.string().regex(TOKEN_CHARACTERS, `must be ${TOKEN_RULE}`);
}
