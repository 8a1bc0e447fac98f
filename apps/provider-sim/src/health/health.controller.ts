import { Controller, Get } from '@nestjs/common';

/** `GET /health`: the simulator keeps everything in memory, so being able to answer is being healthy. */
@Controller('health')
export class HealthController {
  @Get()
  check(): { status: 'ok' } {
    return { status: 'ok' };
  }
}
