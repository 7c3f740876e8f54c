/**
 * A vitest setup file: after each test file, the apps it built with `testApp` are closed (test/helpers.ts says
 * why: files share a worker process).
 */
import { afterAll } from 'vitest';
import { closeTestApps } from './helpers.ts';

afterAll(closeTestApps);
