import { Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';
import { UnsupportedMediaTypeError } from './gateway-errors.js';

/** Refuses (415) a request whose body is not `application/json`; runs after authentication. */
@Injectable()
export class JsonContentTypeGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<Request>();
    if (req.is('application/json') === false || req.headers['content-type'] === undefined) {
      throw new UnsupportedMediaTypeError(req.headers['content-type']);
    }
    return true;
  }
}
