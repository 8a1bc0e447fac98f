import { Injectable } from '@nestjs/common';
import type { InvoiceJob } from '@retry-safe/contracts';
import type { InvoiceDelivery, RequestWrites } from '../invoices/invoice-delivery.js';
import { InvoicesRepository } from '../invoices/invoices.repository.js';
import { OutboxRelay } from '../invoices/outbox-relay.service.js';

/**
 * DEMONSTRATION of the wrong design of the outbox scenario (`PUT /__config {"invoicePublish":
 * "publish-after-commit"}`): the request commits alone, then the job is added to the queue; killed between the
 * two (`orders/after-invoice-commit`), the delivery is lost. Its row is then recorded as published, as the
 * relay's would be.
 */
@Injectable()
export class PublishAfterCommit implements InvoiceDelivery {
  constructor(
    private readonly invoices: InvoicesRepository,
    private readonly relay: OutboxRelay,
  ) {}

  async deliver(job: InvoiceJob, writes: RequestWrites, committed: () => Promise<void>): Promise<void> {
    await this.invoices.db.transaction().execute(writes);
    await committed();
    await this.relay.publishDirectly(job);
    await this.invoices.recordPublished(job);
  }
}
