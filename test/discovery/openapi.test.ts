import { validate } from '@readme/openapi-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_URL, buildTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
// biome-ignore lint/suspicious/noExplicitAny: an OpenAPI document is walked structurally
let doc: any;
beforeAll(async () => {
  t = await buildTestApp();
  doc = (await t.app.inject('/openapi.json')).json();
});
afterAll(() => t.close());

/** Ajv over the document's own component schemas, so that $refs resolve as a client's would. */
function validatorFor(schema: object) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: 'openapi.json', components: doc.components }, 'openapi.json');
  const rewritten = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/'));
  return ajv.compile(rewritten);
}

describe('GET /openapi.json', () => {
  it('is a valid OpenAPI 3.1.0 document, version 1.0.0, with the real server URL', async () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
    expect(doc.servers).toEqual([{ url: BASE_URL }]);
    const result = await validate(structuredClone(doc));
    expect(result.valid ? [] : result.errors).toEqual([]);
  });

  it('documents searchStages with every parameter, default and bound, and its 200, 400 and 429', () => {
    const op = doc.paths['/api/stages'].get;
    expect(op.operationId).toBe('searchStages');
    const params = Object.fromEntries(
      op.parameters.map((p: { name: string; schema: object; in: string }) => [p.name, p]),
    );
    expect(Object.keys(params).sort()).toEqual([
      'city',
      'cursor',
      'days',
      'dept',
      'from',
      'includeUnavailable',
      'limit',
      'maxPrice',
      'near',
      'radiusKm',
      'region',
      'sort',
      'to',
    ]);
    for (const p of Object.values(params) as Array<{ in: string; required?: boolean }>) {
      expect(p.in).toBe('query');
      expect(p.required ?? false).toBe(false);
    }
    expect(params.limit.schema).toMatchObject({ type: 'integer', default: 20, minimum: 1, maximum: 100 });
    expect(params.includeUnavailable.schema).toMatchObject({ type: 'boolean', default: false });
    expect(params.maxPrice.schema).toMatchObject({ type: 'number', minimum: 0 });
    expect(params.radiusKm.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 200 });
    expect(params.sort.schema).toMatchObject({ enum: ['date', 'price', 'distance'] });
    expect(params.days.schema).toMatchObject({ type: 'string' });
    for (const [name, p] of Object.entries(params) as Array<
      [string, { description?: string; schema: { examples?: unknown[] }; example?: unknown; examples?: unknown }]
    >) {
      expect(p.description, name).toBeTruthy();
      expect(p.schema.examples ?? p.example ?? p.examples, name).toBeDefined();
    }
    expect(Object.keys(op.responses).sort()).toEqual(['200', '304', '400', '429']);
    expect(Object.keys(op.responses['400'].content)).toEqual(['application/problem+json']);
    expect(Object.keys(op.responses['429'].content)).toEqual(['application/problem+json']);
  });

  it('documents health with operationId health and its 200 and 503', () => {
    const op = doc.paths['/api/health'].get;
    expect(op.operationId).toBe('health');
    expect(Object.keys(op.responses).sort()).toEqual(['200', '503']);
  });

  it('declares the change stream as text/event-stream, the media type it is served with', () => {
    const op = doc.paths['/api/stages/events'].get;
    expect(Object.keys(op.responses['200'].content)).toEqual(['text/event-stream']);
    // Its refusals are problems, as everywhere.
    expect(Object.keys(op.responses['429'].content)).toEqual(['application/problem+json']);
  });

  it('describes the real responses: a session list, a problem and a health report validate against it', async () => {
    const stagesOp = doc.paths['/api/stages'].get;
    const listSchema = stagesOp.responses['200'].content['application/json'].schema;
    const list = (await t.app.inject('/api/stages?limit=100&includeUnavailable=true')).json();
    expect(list.count).toBe(100);
    const validateList = validatorFor(listSchema);
    expect(validateList(list), JSON.stringify(validateList.errors)).toBe(true);

    const problemContent = stagesOp.responses['400'].content;
    const problemSchema = problemContent['application/problem+json'].schema;
    const bad = (await t.app.inject('/api/stages?limit=0')).json();
    const validateProblem = validatorFor(problemSchema);
    expect(validateProblem(bad), JSON.stringify(validateProblem.errors)).toBe(true);

    const healthSchema = doc.paths['/api/health'].get.responses['200'].content['application/json'].schema;
    const validateHealth = validatorFor(healthSchema);
    const health = (await t.app.inject('/api/health')).json();
    expect(validateHealth(health), JSON.stringify(validateHealth.errors)).toBe(true);
  });

  it('rejects a response that breaks the documented schema (the check can fail)', () => {
    const listSchema = doc.paths['/api/stages'].get.responses['200'].content['application/json'].schema;
    const validateList = validatorFor(listSchema);
    expect(
      validateList({ object: 'list', count: 1, description: '', platform: '', updatedAt: 'yesterday', data: [{}] }),
    ).toBe(false);
  });
});
