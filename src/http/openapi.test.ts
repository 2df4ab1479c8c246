import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startParley, type TestParley } from '../../test/helper.ts';

let parley: TestParley;
beforeAll(async () => {
  parley = await startParley();
});
afterAll(() => parley.close());

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const response = await parley.request('GET', '/openapi.json');
    expect(response.status).toBe(200);
    expect(response.body.openapi).toBe('3.1.0');
    await expect(SwaggerParser.validate(structuredClone(response.body))).resolves.toBeTruthy();
  });

  it('gives every operation a response schema, and every body-taking operation a request schema', async () => {
    const document = (await parley.request('GET', '/openapi.json')).body;
    const operations = Object.entries(document.paths).flatMap(([path, item]: [string, any]) =>
      Object.entries(item).map(([method, operation]: [string, any]) => ({ name: `${method.toUpperCase()} ${path}`, method, operation })),
    );
    expect(operations.length).toBeGreaterThanOrEqual(19);
    for (const { name, method, operation } of operations) {
      // A sign-in's start only redirects (to the identity provider); a thread's form, back to the page (303).
      const success = Object.entries(operation.responses).find(([status]) => status.startsWith('2') || status === '302' || status === '303');
      expect(success, name).toBeDefined();
      const [status, response] = success as [string, any];
      // The pages a mail's links open (readers' and staff's, and readers' sign-in links) are HTML, and their buttons (and mail clients' one-click) post forms.
      const mailPage = name.includes('/v1/mail/') || name.endsWith('/api/auth/verify-email') || name.endsWith('/v1/auth/email/link') || name === 'GET /v1/auth/callback';
      const htmlAnswer = mailPage || name === 'GET /v1/comments/html';
      const formPost = mailPage || name === 'POST /v1/comments/form';
      const type = name.endsWith('/stream') ? 'text/event-stream' : name.endsWith('/sites/{id}/export') ? 'application/x-ndjson' : htmlAnswer ? 'text/html' : 'application/json';
      if (status !== '204' && status !== '302' && status !== '303') expect(response.content?.[type]?.schema, name).toBeDefined();
      if (mailPage) expect(Object.keys(response.content), name).toEqual(['text/html']);
      expect(operation.responses['4XX'] ?? operation.responses['4xx'], name).toBeDefined();
      if (formPost && method === 'post') {
        expect(Object.keys(operation.requestBody?.content ?? {}).sort(), name).toEqual(['application/x-www-form-urlencoded', 'multipart/form-data']);
      } else if (['post', 'patch'].includes(method) && !/\/(vote|flag|redeliver|test|logout|reset-link|sso-secrets|resend|claim|pin)$/.test(name)) {
        expect(operation.requestBody?.content?.['application/json']?.schema, name).toBeDefined();
      }
    }
  });

  it('is rendered at /docs', async () => {
    const response = await fetch(`${parley.url}/docs/`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('swagger');
  });
});
