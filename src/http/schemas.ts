import { Type, type TSchema, type TSchemaOptions } from 'typebox';
import { ERROR_STATUS } from '../errors.ts';

/** RFC 9457 problem details, as every error leaves the API. */
export const Problem = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    code: Type.Enum(Object.keys(ERROR_STATUS)),
    errors: Type.Optional(Type.Array(Type.Object({ path: Type.String(), message: Type.String() }))),
  },
  { $id: 'Problem', description: 'RFC 9457 problem details (application/problem+json)' },
);

export const ProblemRef = Type.Ref('Problem');

/** The error answers a route documents; they all share the Problem shape. */
export const errors = { '4xx': ProblemRef, '5xx': ProblemRef } as const;

export const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 100 }) });

export const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 UTC with milliseconds' });

type Security = Array<Record<string, string[]>>;
export const Credential: Security = [{ bearer: [] }, { apiKey: [] }];
export const OptionalCredential: Security = [{}, ...Credential];
/** The management API also takes a staff member's cookie (reads) or cookie and CSRF token (writes). */
export const ManagementRead: Security = [...Credential, { staffCookie: [] }];
export const ManagementWrite: Security = [...Credential, { staffCookie: [], csrfToken: [] }];
export const StaffRead: Security = [{ staffCookie: [] }];
export const StaffWrite: Security = [{ staffCookie: [], csrfToken: [] }];

/** A value or null. */
export function Nullable<T extends TSchema>(schema: T, options?: TSchemaOptions) {
  return Type.Union([schema, Type.Null()], options);
}
