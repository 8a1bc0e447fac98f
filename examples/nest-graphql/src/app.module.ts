import { Module, type DynamicModule } from '@nestjs/common';
import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { GraphQLModule } from '@nestjs/graphql';
import { IdempotencyModule } from '@retry-safe/idempotency/nest';
import { API_CONFIG, type ApiConfig } from './config.js';
import { IdempotencyOptions } from './idempotency-options.js';
import { PaymentProvider } from './payment-provider.js';
import { PaymentsResolver } from './payments.resolver.js';

/** Holds the config for every module: IdempotencyModule builds its options with it too. */
@Module({})
class ConfigModule {}

@Module({})
export class AppModule {
  /** The API with `config`: main.ts loads it from the environment, a test brings its own. */
  static with(config: ApiConfig): DynamicModule {
    const configModule: DynamicModule = {
      module: ConfigModule,
      global: true,
      providers: [{ provide: API_CONFIG, useValue: config }],
      exports: [API_CONFIG],
    };
    return {
      module: AppModule,
      imports: [
        configModule,
        GraphQLModule.forRoot<ApolloDriverConfig>({
          driver: ApolloDriver,
          // Code-first: the schema is generated from the decorated classes, in memory.
          autoSchemaFile: true,
          // Errors without the server's stack trace, as in production (Apollo adds it otherwise).
          includeStacktraceInErrorResponses: false,
        }),
        IdempotencyModule.forRootAsync({ useClass: IdempotencyOptions }),
      ],
      providers: [PaymentsResolver, PaymentProvider],
    };
  }
}
