import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { z } from 'zod';
import { StackService } from '../stack/stack.service.js';
import type { RunView, ScenarioView, StatusView } from './console-api.js';
import { RunsService } from './runs.service.js';

/** A scenario's name, or `explorer`. */
export const ScenarioName = z.string().regex(/^[a-z0-9-]{1,64}$/, 'a scenario name, e.g. chain');

/** `POST /api/runs`. */
export const RunBody = z.strictObject({
  scenario: ScenarioName,
  row: z.number().int().min(0).max(100).optional(),
});

/** `POST /api/payments`. */
export const PaymentBody = z.strictObject({
  amount: z.number().int('must be a whole number of cents').min(1).max(1_000_000),
  key: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[A-Za-z0-9._:-]+$/, 'letters, digits and . _ : - only'),
  loseAfterPayments: z.boolean(),
  loseAfterOrders: z.boolean(),
});

/** A run's id in `GET /api/runs/{id}`. */
export const RunId = z.uuid();

/** The console's API: the stack's status, the scenarios, runs of them, explorer payments. */
@Controller('api')
export class RunsController {
  constructor(
    private readonly stack: StackService,
    private readonly runs: RunsService,
  ) {}

  /** Whether the stack is up, and what starting it said. */
  @Get('status')
  status(): StatusView {
    return this.stack.status();
  }

  /** Every scenario: its question, its designs and their expected cells. */
  @Get('scenarios')
  scenarios(): ScenarioView[] {
    return this.runs.scenarios();
  }

  /** Runs a scenario, or one row of it (202: poll `GET /api/runs/{id}`). */
  @Post('runs')
  @HttpCode(202)
  run(@Body({ schema: RunBody }) body: z.infer<typeof RunBody>): { id: string } {
    return { id: this.runs.startScenario(body) };
  }

  /** Sends one payment of the explorer (202: poll `GET /api/runs/{id}`, whose `trace` is the payment's). */
  @Post('payments')
  @HttpCode(202)
  pay(@Body({ schema: PaymentBody }) body: z.infer<typeof PaymentBody>): { id: string } {
    return { id: this.runs.startPayment(body) };
  }

  /** The newest run of a scenario (`explorer`: of the explorer), or none: what a page opened again shows. */
  @Get('scenarios/:name/latest-run')
  latest(@Param('name', { schema: ScenarioName }) name: string): { run: RunView | null } {
    return { run: this.runs.latest(name) ?? null };
  }

  /** A run: its rows (measured beside expected), its diagrams as they grow, its steps. */
  @Get('runs/:id')
  view(@Param('id', { schema: RunId }) id: string): RunView {
    return this.runs.view(id);
  }
}
