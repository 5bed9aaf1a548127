import type { FastifyReply } from 'fastify';
import { z } from 'zod';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

export const ProblemSchema = z
  .object({
    type: z.string().describe('Problem type; "about:blank": the status code and `code` say what happened.'),
    title: z.string().describe('Short summary of the problem type.'),
    status: z.int().describe('HTTP status code.'),
    code: z.string().describe('Stable machine-readable error code, e.g. "invalid_parameters".'),
    detail: z.string().optional().describe('Explanation specific to this occurrence.'),
    instance: z.string().optional().describe('The request path.'),
    errors: z
      .array(
        z.object({
          name: z.string().describe('Parameter or field name.'),
          reason: z.string().describe('What is wrong with it.'),
          index: z.int().optional().describe('Imports: position of the bad record in the batch, from 0.'),
          line: z.int().optional().describe('Imports (NDJSON, CSV): line of the bad record in the file.'),
          type: z.string().optional().describe('Imports: the record\'s type, "centre" or "session".'),
          id: z.string().optional().describe("Imports: the record's id."),
          candidates: z
            .array(
              z.object({
                name: z.string().describe('Commune name, e.g. "Saint-Denis".'),
                deptCode: z.string().describe('Its department code, e.g. "93".'),
                postalCode: z.string().describe('One of its postal codes, e.g. "93200".'),
                near: z.string().describe('The value naming it alone, e.g. "Saint-Denis 93200".'),
              }),
            )
            .optional()
            .describe(
              'A place several communes answer to: each, most populous first; ask which, then send its `near`.',
            ),
        }),
      )
      .optional()
      .describe('One entry per invalid parameter.'),
    errorCount: z
      .int()
      .optional()
      .describe('Imports: how many issues there are in all; `errors` lists the first of them, in record order.'),
    truncated: z.boolean().optional().describe('Imports: true when `errors` lists fewer issues than `errorCount`.'),
    higherTier: z
      .object({
        detail: z.string().describe('What the higher tier is and how to reach it.'),
        href: z.url().describe('Where it is explained.'),
      })
      .optional()
      .describe('An anonymous caller out of budget (429): the registered clients’ higher, per-client limit.'),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details.' });

export type Problem = z.output<typeof ProblemSchema>;
export type ParameterError = NonNullable<Problem['errors']>[number];

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  412: 'Precondition Failed',
  422: 'Unprocessable Content',
  406: 'Not Acceptable',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  503: 'Service Unavailable',
};

/** Error codes are listed in the README under "Errors". */
export function problem(status: number, code: string, detail?: string, extra: Partial<Problem> = {}): Problem {
  return {
    type: 'about:blank',
    title: TITLES[status] ?? 'Error',
    status,
    code,
    ...(detail === undefined ? {} : { detail }),
    ...extra,
  };
}

/** A documented problem response, served as application/problem+json. */
export function problemResponse(description: string) {
  return { description, content: { [PROBLEM_CONTENT_TYPE]: { schema: ProblemSchema } } };
}

export function sendProblem(reply: FastifyReply, body: Problem): FastifyReply {
  return reply.code(body.status).type(PROBLEM_CONTENT_TYPE).send(body);
}
