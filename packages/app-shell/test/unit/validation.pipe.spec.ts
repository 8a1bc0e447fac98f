import { describe, expect, it } from '@jest/globals';
import type { ArgumentMetadata } from '@nestjs/common';
import { z } from 'zod';
import { ValidationFailedError } from '../../src/http/errors.js';
import { createValidationPipe } from '../../src/http/validation.pipe.js';

// A strict body like the services' payment commands (an unknown key is an issue of its own).
const CreatePaymentSchema = z.strictObject({
  amount: z.int().positive(),
  currency: z.string().length(3),
});

const body: ArgumentMetadata = { type: 'body', schema: CreatePaymentSchema };

describe('createValidationPipe', () => {
  it('passes a valid body through the schema', async () => {
    await expect(createValidationPipe().transform({ amount: 100, currency: 'EUR' }, body)).resolves.toEqual({
      amount: 100,
      currency: 'EUR',
    });
  });

  it.each(['constructor', 'prototype', '__proto__'])(
    'refuses a body with a "%s" key instead of silently dropping it',
    async (key) => {
      const value = JSON.parse(`{"amount":100,"currency":"EUR","${key}":1}`) as unknown;
      const error = await createValidationPipe()
        .transform(value, body)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationFailedError);
      expect((error as ValidationFailedError).issues).toEqual([`(body): Unrecognized key: "${key}"`]);
    },
  );

  it('refuses such a key in a path parameter too, like any app using the pipe (orders let them through)', async () => {
    const param: ArgumentMetadata = { type: 'param', data: 'id', schema: z.strictObject({ a: z.string() }) };
    const error = await createValidationPipe()
      .transform(JSON.parse('{"a":"x","__proto__":{"polluted":true}}') as unknown, param)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationFailedError);
    expect((error as ValidationFailedError).issues).toEqual(['(body): Unrecognized key: "__proto__"']);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('finds such a key at any depth and names its path', async () => {
    const value = JSON.parse('{"amount":{"a":[{"constructor":1}]},"currency":"EUR"}') as unknown;
    const error = await createValidationPipe()
      .transform(value, body)
      .catch((e: unknown) => e);
    expect((error as ValidationFailedError).issues).toEqual(['amount.a.0: Unrecognized key: "constructor"']);
  });

  it('turns schema issues into one ValidationFailedError, one line per issue', async () => {
    const error = await createValidationPipe()
      .transform({ amount: 0, currency: 'EUR', tip: 1 }, body)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationFailedError);
    expect((error as ValidationFailedError).issues).toHaveLength(2);
  });
});
