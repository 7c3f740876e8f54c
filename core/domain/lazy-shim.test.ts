import { describe, it, expect } from 'vitest';
import { defineShim, type Json, type Shim } from '../shim.ts';
import { defineLazyShim } from './lazy-shim.ts';

const context = { config: {}, now: '2026-01-01T00:00:00Z' };

const counter: Shim<{ count: number } & Json> = defineShim({
  name: 'counter',
  description: 'Counts.',
  actions: [
    { name: 'add', description: 'Add one.', parameters: { type: 'object' } },
    { name: 'read', description: 'Read the count.', readOnly: true, parameters: { type: 'object' } },
  ],
  initialState: (seed) => ({ count: typeof seed === 'number' ? seed : 0 }),
  call: (action, _params, state) => (action === 'add' ? { result: state.count + 1, state: { count: state.count + 1 } } : { result: state.count, state }),
});

const { initialState: _initialState, call: _call, ...declared } = counter;

describe('core: defineLazyShim', () => {
  it('offers the declaration at once and loads the shim once, on the first world, then answers as it does', async () => {
    let loads = 0;
    const lazy = defineLazyShim({ ...declared, load: async () => (loads++, counter) });
    expect(loads).toBe(0);
    expect(lazy.actions.map((action) => action.name)).toEqual(['add', 'read']);
    expect(lazy.actions[1].readOnly).toBe(true);
    const state = await lazy.initialState(41, context);
    expect(state).toEqual({ count: 41 });
    // Loaded: calls answer synchronously, as the shim's own do.
    const outcome = lazy.call('add', {}, state, context);
    expect(outcome).toEqual({ result: 42, state: { count: 42 } });
    expect(loads).toBe(1);
  });

  it('fails a load with an error naming the shim and the cause, and loads again at the next use', async () => {
    let attempts = 0;
    const lazy = defineLazyShim({
      ...declared,
      load: async () => {
        attempts++;
        if (attempts === 1) throw new Error("Cannot find module './gone.js'");
        return counter;
      },
    });
    await expect(lazy.initialState(undefined, context)).rejects.toThrow(`shim "counter" could not be loaded: Cannot find module './gone.js'`);
    expect(await lazy.initialState(undefined, context)).toEqual({ count: 0 });
    expect(attempts).toBe(2);
  });

  it('refuses a loaded shim unlike its declaration (name, actions, behaviour the engine reads before loading)', async () => {
    const renamed = defineLazyShim({ ...declared, load: async () => ({ ...counter, name: 'other' }) });
    await expect(renamed.initialState(undefined, context)).rejects.toThrow('shim "counter": the module it loads on first use does not match its declaration: it is named "other"');
    const fewer = defineLazyShim({ ...declared, load: async () => ({ ...counter, actions: counter.actions.slice(0, 1) }) });
    await expect(fewer.call('add', {}, { count: 0 }, context)).rejects.toThrow('its actions are [add], declared [add, read]');
    const viewed = defineLazyShim({ ...declared, load: async () => ({ ...counter, view: (state: Json) => state }) });
    await expect(viewed.initialState(undefined, context)).rejects.toThrow('it defines view, which a lazily loaded shim can only declare up front');
    const view = (state: Json) => state;
    const otherView = defineLazyShim({ ...declared, view, module: 'file:///shim.js', load: async () => ({ ...counter, view: (state: Json) => state, module: 'file:///shim.js' }) });
    await expect(otherView.initialState(undefined, context)).rejects.toThrow('it defines view, which a lazily loaded shim can only declare up front');
    const notAShim = defineLazyShim({ ...declared, load: async () => ({}) as Shim });
    await expect(notAShim.initialState(undefined, context)).rejects.toThrow('it is not a shim');
  });

  it('offers what the engine reads without calling the shim (view, module…) from the declaration, before any load', async () => {
    let loads = 0;
    const view = (state: Json) => ({ shown: state });
    const checks = { positive: (state: Json) => (state as { count: number }).count > 0 };
    const lazy = defineLazyShim({ ...declared, view, checks, module: 'file:///counter.js', load: async () => (loads++, { ...counter, view, checks, module: 'file:///counter.js' }) });
    expect(lazy.view!({ count: 1 })).toEqual({ shown: { count: 1 } });
    expect(lazy.checks!.positive({ count: 1 }, {})).toBe(true);
    expect(lazy.module).toBe('file:///counter.js');
    expect(loads).toBe(0);
    // The loaded shim repeats the declared parts themselves: accepted.
    expect(await lazy.initialState(3, context)).toEqual({ count: 3 });
    expect(loads).toBe(1);
  });

  it('checks the declaration as defineShim does, and needs load()', () => {
    expect(() => defineLazyShim({ ...declared, name: 'Bad Name', load: async () => counter })).toThrow('shim name "Bad Name" must be snake_case');
    expect(() => defineLazyShim({ ...declared } as never)).toThrow('shim "counter": a lazily loaded shim needs load()');
  });
});
