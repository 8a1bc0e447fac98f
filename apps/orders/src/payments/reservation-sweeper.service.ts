import {
  Inject,
  Injectable,
  Logger,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { ORDERS_CONFIG, type OrdersConfig } from '../config/orders-config.js';
import { PaymentReservations } from './payment-reservations.repository.js';

/** Reservations one sweep statement releases at most; a sweep repeats it until a batch comes back short. */
export const RESERVATION_SWEEP_BATCH = 1_000;

/**
 * Releases the reservations whose key's record expired (`expires_at`: the reservation's time plus
 * `IDEMPOTENCY_TTL_MS`, the TTL of the key's records in orders and payments), every `RESERVATION_SWEEP_MS`, from
 * start-up. Such a payment's outcome was never learned (a timeout, a 5xx, a crash) and no retry of its key came to
 * resolve it: past the TTL a retry would be a new payment anyway, so the amount goes back to the order. Safe on
 * several replicas (the statement skips rows another sweep holds); sweeps never overlap within a process.
 */
@Injectable()
export class ReservationSweeper implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(ReservationSweeper.name);
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;

  constructor(
    @Inject(ORDERS_CONFIG) private readonly config: OrdersConfig,
    private readonly reservations: PaymentReservations,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep(), this.config.reservationSweepMs);
  }

  /** One sweep now (or the running one): resolves to how many reservations it released; 0 when it failed. */
  sweep(): Promise<number> {
    this.running ??= this.reservations
      .sweep(RESERVATION_SWEEP_BATCH)
      .then((released) => {
        if (released > 0) this.logger.log({ msg: 'expired reservations released', released });
        return released;
      })
      .catch((error: unknown) => {
        this.logger.warn({ msg: 'reservation sweep failed', error: String(error) });
        return 0;
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }
}
