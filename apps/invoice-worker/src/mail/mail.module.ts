import { Module } from '@nestjs/common';
import { MailProviderClient } from './mail-provider.client.js';

/** The client of the external mail provider. */
@Module({ providers: [MailProviderClient], exports: [MailProviderClient] })
export class MailModule {}
