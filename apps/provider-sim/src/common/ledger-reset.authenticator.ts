import type { IncomingMessage } from 'node:http';
import { isLoopback } from '@retry-safe/app-shell/config';
import {
  InternalTokenAuthenticator,
  UnauthorizedError,
  type CallerAuthenticator,
} from '@retry-safe/app-shell/http';

/**
 * Who may reset a ledger (`DELETE /v1/charges`, `DELETE /v1/emails`): the same rule as the `/__*` routes. With
 * `ADMIN_TOKEN` set it demands `Authorization: Bearer <ADMIN_TOKEN>`; without one, a provider-sim listening off
 * loopback (`HOST`) refuses every reset, faults on or off: a reset erases the evidence of every charge. A charge or
 * an email (`POST`) and the ledger's view (`GET`) need no credential.
 */
export class LedgerResetAuthenticator implements CallerAuthenticator {
  private readonly admin: InternalTokenAuthenticator | undefined;
  private readonly open: boolean;

  /** @param host - `HOST`: a reset needs no token only on loopback. */
  constructor(adminToken: string | undefined, host: string) {
    this.admin =
      adminToken === undefined ? undefined : new InternalTokenAuthenticator(adminToken, 'ADMIN_TOKEN');
    this.open = adminToken === undefined && isLoopback(host);
  }

  authenticate(req: IncomingMessage): void {
    if (req.method !== 'DELETE' || this.open) return;
    if (this.admin === undefined) {
      throw new UnauthorizedError(`Resetting a ledger off loopback needs ADMIN_TOKEN, which is not set`);
    }
    this.admin.authenticate(req);
  }
}
