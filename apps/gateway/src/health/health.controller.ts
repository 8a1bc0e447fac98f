import { Controller, Get } from '@nestjs/common';

/** `GET /health`: the gateway holds no state of its own, so it is healthy when it answers. */
@Controller('health')
export class HealthController {
  @Get()
  check(): { status: 'ok' } {
    return { status: 'ok' };
  }
}
