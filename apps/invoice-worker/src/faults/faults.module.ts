import { Global, Module } from '@nestjs/common';
import { JobFaults, PROCESS_CRASHER, sigkillSelf } from './job-faults.js';

/** The job fault points (the rules themselves live in `FaultInjectionModule`, mounted by the app module). */
@Global()
@Module({
  providers: [JobFaults, { provide: PROCESS_CRASHER, useValue: sigkillSelf }],
  exports: [JobFaults],
})
export class FaultsModule {}
