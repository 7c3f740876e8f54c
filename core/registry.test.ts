import { describe, it, expect } from 'vitest';
import { createRegistry } from './registry.ts';

interface Item { id: string; value?: number }

describe('core: registry', () => {
  it('keeps items by name, in registration order, with their owner', () => {
    const registry = createRegistry<Item>('widget', (item) => item.id);
    registry.register({ id: 'b', value: 2 }, 'plugin-b');
    registry.register({ id: 'a', value: 1 });
    expect(registry.kind).toBe('widget');
    expect(registry.names()).toEqual(['b', 'a']);
    expect(registry.list().map((item) => item.value)).toEqual([2, 1]);
    expect(registry.get('a')).toEqual({ id: 'a', value: 1 });
    expect(registry.get('missing')).toBeUndefined();
    expect(registry.has('b')).toBe(true);
    expect(registry.has('missing')).toBe(false);
    expect(registry.ownerOf('b')).toBe('plugin-b');
    expect(registry.ownerOf('a')).toBeUndefined();
  });

  it('returns the registered item', () => {
    const registry = createRegistry<Item>('widget', (item) => item.id);
    const item = { id: 'x' };
    expect(registry.register(item)).toBe(item);
  });

  it('refuses a duplicate name, naming both owners', () => {
    const registry = createRegistry<Item>('metric', (item) => item.id);
    registry.register({ id: 'pii_leak' }, 'metrics-privacy');
    expect(() => registry.register({ id: 'pii_leak' }, 'my-plugin')).toThrow('metric "pii_leak" is registered twice (by metrics-privacy and my-plugin)');
  });

  it('refuses an item without a name', () => {
    const registry = createRegistry<Item>('metric', (item) => item.id);
    expect(() => registry.register({ id: '' })).toThrow('a metric needs a name');
  });

  it('refuses registrations after freeze, keeping what it has', () => {
    const registry = createRegistry<Item>('signer', (item) => item.id);
    registry.register({ id: 'local' });
    registry.freeze();
    expect(() => registry.register({ id: 'kms' }, 'late')).toThrow('cannot register signer "kms" after the service started');
    expect(registry.names()).toEqual(['local']);
  });

  it('hands out copies of its lists, so callers cannot change it', () => {
    const registry = createRegistry<Item>('widget', (item) => item.id);
    registry.register({ id: 'a' });
    registry.names().push('b');
    registry.list().push({ id: 'c' });
    expect(registry.names()).toEqual(['a']);
  });
});
