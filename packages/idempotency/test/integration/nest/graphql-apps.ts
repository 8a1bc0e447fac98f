import type { DynamicModule, INestApplication } from '@nestjs/common';
import { ApolloDriver, type ApolloDriverConfig } from '@nestjs/apollo';
import { GraphQLModule } from '@nestjs/graphql';
import { MercuriusDriver, type MercuriusDriverConfig } from '@nestjs/mercurius';
import request from 'supertest';
import type { IdempotencyModuleOptions } from '../../../src/nest/index.js';
import { ChargesResolver, GraphqlEffects } from './charges.resolver.js';
import { startNestApp, type Platform } from './nest-apps.js';

/** The GraphQL servers Nest drives: Apollo Server 5 on Express, Mercurius on Fastify; the schema code-first. */
export const GRAPHQL_DRIVERS = ['apollo', 'mercurius'] as const;
export type GraphqlDriver = (typeof GRAPHQL_DRIVERS)[number];

export const PLATFORM_OF: Record<GraphqlDriver, Platform> = { apollo: 'express', mercurius: 'fastify' };

function graphqlModule(driver: GraphqlDriver): DynamicModule {
  return driver === 'apollo'
    ? GraphQLModule.forRoot<ApolloDriverConfig>({
        driver: ApolloDriver,
        autoSchemaFile: true,
        // As in production: errors without the server's stack (Apollo adds it outside production by default).
        includeStacktraceInErrorResponses: false,
      })
    : GraphQLModule.forRoot<MercuriusDriverConfig>({ driver: MercuriusDriver, autoSchemaFile: true });
}

export const CHARGE = 'mutation($input: ChargeInput!) { charge(input: $input) { id amount effect } }';
export const REFUND = 'mutation($amount: Int!) { refund(amount: $amount) { id amount effect } }';

/** A GraphQL app on `driver` with the charges resolver, and how to post an operation to it. */
export async function startGraphqlApp(
  driver: GraphqlDriver,
  options: IdempotencyModuleOptions,
  extra: { imports?: DynamicModule[] } = {},
): Promise<{
  app: INestApplication;
  effects: GraphqlEffects;
  post(query: string, variables: object, key?: string): Promise<request.Response>;
}> {
  const app = await startNestApp(PLATFORM_OF[driver], options, [], {
    providers: [ChargesResolver, GraphqlEffects],
    imports: [graphqlModule(driver), ...(extra.imports ?? [])],
  });
  return {
    app,
    effects: app.get(GraphqlEffects),
    post: async (query, variables, key) => {
      const req = request(app.getHttpServer()).post('/graphql');
      return (key === undefined ? req : req.set('Idempotency-Key', key)).send({ query, variables });
    },
  };
}
