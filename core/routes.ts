/**
 * Route definitions: plugins add HTTP routes as data (method, path, permission, body schema), and the app
 * mounts them behind the same request-id, authentication, permission and body middleware. The OpenAPI
 * document is generated from these definitions and their schemas, so it cannot drift from what is enforced.
 */
import type { AuditEntry } from './hooks.ts';
import type { Context } from 'hono';
import type { Principal } from './auth-manager.ts';
import type { Services } from './services.ts';
import type { JsonSchema } from './validate.ts';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/** Variables every request carries through the middleware chain. */
export interface AppVariables {
  requestId: string;
  services: Services;
  principal?: Principal;
  /** The parsed, validated JSON body of routes that declare one. */
  body?: unknown;
  /** What a handler adds to its request's audit entry (the run it queued or cancelled, the variables its agent uses, whose run it was). */
  auditFacts?: AuditFacts;
}

export type AppEnv = { Variables: AppVariables };
export type AuditFacts = Pick<AuditEntry, 'run_id' | 'agent_envs' | 'run_owner'>;
export type AppContext = Context<AppEnv>;

/** How a route is rate limited: per client address (public routes) or per principal (protected ones). */
export type RateClass = 'public' | 'protected' | 'none';

export interface RouteDefinition {
  method: HttpMethod;
  /** hono path syntax (`/api/v1/runs/:run_id`). */
  path: string;
  /** Other paths served by the same handler (`/api/v1/evaluate` for `/api/evaluate`), each in the OpenAPI document. */
  aliases?: string[];
  /** The permission node required, or `null` for a public route. */
  permission: string | null;
  summary: string;
  tags?: string[];
  /** JSON Schema of the body; when set the route accepts only `application/json` and validates it. */
  body?: JsonSchema;
  /** OpenAPI parameter descriptions for query and path parameters. */
  parameters?: Array<{ name: string; in: 'query' | 'path'; required?: boolean; schema: JsonSchema; description?: string }>;
  /** Response descriptions by status, for the OpenAPI document. */
  responses?: Record<string, { description: string; schema?: JsonSchema; contentType?: string }>;
  /** Defaults to `public` for public routes and `protected` otherwise. */
  rateClass?: RateClass;
  /** Audit action name for mutations (`evaluate`, `mutate`, `sign`, `spec-to-eval`). */
  audit?: string;
  handler(c: AppContext): Response | Promise<Response>;
}
