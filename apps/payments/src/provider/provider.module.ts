import { Module } from '@nestjs/common';
import { ProviderClient } from './provider.client.js';

/** The client of the external payment provider. */
@Module({ providers: [ProviderClient], exports: [ProviderClient] })
export class ProviderModule {}
