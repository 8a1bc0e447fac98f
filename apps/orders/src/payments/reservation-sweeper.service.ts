import { Inject, Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { IntervalLoop } from '@retry-safe/app-shell';
import { ORDERS_CONFIG, type OrdersConfig } from '../config/orders-config.js';
import { PaymentReservations } from './payment-reservations.repository.js';

/** Reservations one sweep statement releases at most; a sweep repeats it until a batch comes back short. */
export const RESERVATION_SWEEP_BATCH = 1_000;

/**
 * Releases the reservations whose key's record expired (`expires_at`: the reservation's time plus
 * `IDEMPOTENCY_TTL_MS`, the TTL of the key's records in orders and payments), every `RESERVATION_SWEEP_MS`, from
 * start-up. Such a payment's outcome was never learned (a timeout, a 5xx, a crash) and no retry of its key came to
 * resolve it: past the TTL a retry would be a new payment anyway, so the amount goes back to the order. Safe on
 * several replicas (the statement skips rows another sweep holds); sweeps never overlap within a process (the
 * shell's interval loop), and one is bounded by its period.
 */
@Injectable()
export class ReservationSweeper implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(ReservationSweeper.name);
  private readonly loop: IntervalLoop<number>;

  constructor(
    @Inject(ORDERS_CONFIG) config: OrdersConfig,
    private readonly reservations: PaymentReservations,
  ) {
    this.loop = new IntervalLoop(
      {
        name: ReservationSweeper.name,
        periodMs: config.reservationSweepMs,
        tickTimeoutMs: config.reservationSweepMs,
        failureMessage: 'reservation sweep failed',
      },
      (signal) => this.release(signal),
    );
  }

  onModuleInit(): void {
    this.loop.start();
  }

  /** One sweep now (or the running one): resolves to how many reservations it released; 0 when it failed. */
  async sweep(): Promise<number> {
    return (await this.loop.run()) ?? 0;
  }

  async onModuleDestroy(): Promise<void> {
    await this.loop.stop();
  }

  private async release(signal: AbortSignal): Promise<number> {
    const released = await this.reservations.sweep(RESERVATION_SWEEP_BATCH, signal);
    if (released > 0) this.logger.log({ msg: 'expired reservations released', released });
    return released;
  }
}
