/**
 * The OpenAPI 3.1 document, generated from the registered route definitions and the JSON Schemas that
 * validate their bodies: one source of truth for what is documented and what is enforced.
 */
import type { RouteDefinition } from '../../core/routes.ts';
import type { JsonSchema } from '../../core/validate.ts';
import { PROBLEM_CATALOGUE } from '../../core/problems.ts';

export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
}

const PROBLEM_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['type', 'title', 'status', 'detail', 'code', 'request_id'],
  properties: {
    type: { type: 'string' },
    title: { type: 'string' },
    status: { type: 'integer' },
    detail: { type: 'string' },
    code: { type: 'string', enum: Object.keys(PROBLEM_CATALOGUE) },
    request_id: { type: 'string' },
    errors: { type: 'array', items: { type: 'object', properties: { path: { type: 'string' }, message: { type: 'string' } } } },
  },
};

/** `/api/v1/runs/:run_id` → `/api/v1/runs/{run_id}` */
function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)(\{[^}]*\})?/g, '{$1}');
}

/** Strips `$id`/`$schema` so schemas embed cleanly as components. */
function embeddable(schema: JsonSchema): JsonSchema {
  const { $id: _id, $schema: _schema, ...rest } = schema;
  return rest;
}

/** Builds the OpenAPI 3.1 document for the given routes. */
export function buildOpenApi(routes: RouteDefinition[], info: OpenApiInfo, schemas: Record<string, JsonSchema> = {}): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes.flatMap((definition) => [definition, ...(definition.aliases ?? []).map((alias) => ({ ...definition, path: alias }))])) {
    const path = openApiPath(route.path);
    const pathParameters = [...route.path.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1]);
    const parameters = [
      ...pathParameters
        .filter((name) => !route.parameters?.some((parameter) => parameter.name === name))
        .map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
      ...(route.parameters ?? []).map((parameter) => ({ ...parameter, required: parameter.in === 'path' ? true : parameter.required ?? false })),
    ];
    const responses: Record<string, unknown> = {};
    for (const [status, response] of Object.entries(route.responses ?? { 200: { description: 'OK' } })) {
      responses[status] = {
        description: response.description,
        ...(response.schema || response.contentType
          ? { content: { [response.contentType ?? 'application/json']: { schema: response.schema ? embeddable(response.schema) : {} } } }
          : {}),
      };
    }
    responses.default = { description: 'Problem details (RFC 9457)', content: { 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } } };
    paths[path] ??= {};
    paths[path][route.method.toLowerCase()] = {
      summary: route.summary,
      tags: route.tags,
      operationId: `${route.method.toLowerCase()}${path.replace(/[^A-Za-z0-9]+(.)?/g, (_, next: string | undefined) => (next ? next.toUpperCase() : ''))}`,
      security: route.permission ? [{ apiKey: [] }, { headerKey: [] }, { bearer: [] }] : [],
      'x-permission': route.permission ?? 'public',
      ...(parameters.length ? { parameters } : {}),
      ...(route.body ? { requestBody: { required: true, content: { 'application/json': { schema: embeddable(route.body) } } } } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info,
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    paths,
    components: {
      schemas: { Problem: PROBLEM_SCHEMA, ...Object.fromEntries(Object.entries(schemas).map(([name, schema]) => [name, embeddable(schema)])) },
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' },
        headerKey: { type: 'apiKey', in: 'header', name: 'X-AES-API-KEY' },
        bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT or static key' },
      },
    },
  };
}
