import { Injectable } from '@nestjs/common';
import type { InvoiceJob } from '@retry-safe/contracts';
import type { InvoiceDelivery, RequestWrites } from './invoice-delivery.js';
import { InvoicesRepository } from './invoices.repository.js';

/**
 * The design: the delivery is an outbox row committed in the request's transaction, and the relay puts it on
 * the queue after the commit. A crash between the commit and the publication loses nothing (the row waits for
 * the relay), and there is no publication of a request that did not commit.
 */
@Injectable()
export class OutboxDelivery implements InvoiceDelivery {
  constructor(private readonly invoices: InvoicesRepository) {}

  async deliver(job: InvoiceJob, writes: RequestWrites, committed: () => Promise<void>): Promise<void> {
    await this.invoices.db.transaction().execute(async (trx) => {
      await writes(trx);
      await this.invoices.addToOutbox(trx, job);
    });
    await committed();
  }
}
