import { z } from 'zod';

/** An order id in a path: a UUID, lower or upper case (RFC 9562), normalised to lower case. */
export const OrderIdSchema = z.uuid().transform((id) => id.toLowerCase());
