import { InternalTokenAuthenticator, type CallerAuthenticator } from '@retry-safe/app-shell';
import type { Request } from 'express';

/**
 * Who may reset a ledger (`DELETE /v1/charges`, `DELETE /v1/emails`): the same rule as the `/__*` routes. With
 * `ADMIN_TOKEN` set (required with `FAULTS_ENABLED=true` off loopback) it demands `Authorization: Bearer
 * <ADMIN_TOKEN>`; a charge or an email (`POST`) and the ledger's view (`GET`) need no credential.
 */
export class LedgerResetAuthenticator implements CallerAuthenticator {
  private readonly admin: InternalTokenAuthenticator | undefined;

  constructor(adminToken: string | undefined) {
    this.admin =
      adminToken === undefined ? undefined : new InternalTokenAuthenticator(adminToken, 'ADMIN_TOKEN');
  }

  authenticate(req: Request): void {
    if (req.method === 'DELETE') this.admin?.authenticate(req);
  }
}
