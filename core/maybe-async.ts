/**
 * Values that are there at once on the fast path and come later on the slow one. The request pipeline stays
 * synchronous while every step answers synchronously (a static key, a cached count), because each turn through
 * the promise machinery costs about as much as a step itself (docs/bench-foundation.md).
 */
export type MaybePromise<T> = T | Promise<T>;

/** True for a promise or any thenable. */
export function isPromiseLike<T>(value: MaybePromise<T> | PromiseLike<T>): value is Promise<T> {
  return typeof (value as PromiseLike<T> | null)?.then === 'function';
}

/**
 * `next(value)` now when `value` is there, after it settles otherwise. Every failure after this point goes to
 * `fail`: `value` rejecting, `next` throwing, or the promise `next` returns rejecting.
 */
export function andThen<T, R>(value: MaybePromise<T>, next: (value: T) => MaybePromise<R>, fail: (error: unknown) => MaybePromise<R>): MaybePromise<R> {
  if (isPromiseLike(value)) return Promise.resolve(value).then(next).catch(fail);
  try {
    const result = next(value);
    return isPromiseLike(result) ? Promise.resolve(result).catch(fail) : result;
  } catch (error) {
    return fail(error);
  }
}
