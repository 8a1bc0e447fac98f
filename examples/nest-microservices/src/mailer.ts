import { Injectable } from '@nestjs/common';

/** Stands in for an email provider: `sent` counts the receipts that left, the effect a duplicate must not repeat. */
@Injectable()
export class Mailer {
  sent = 0;

  async sendReceipt(_order: string, _email: string): Promise<void> {
    this.sent += 1;
  }
}
