/**
 * The JavaScript a sandbox runs before a script (./script-worker.ts): it is a function of the
 * four host functions the worker made, and returns what the worker drives a call with. It sets
 * the script's globals (console, timers, ToolError; `require` and `fetch` that say what to use
 * instead), builds each call's `ctx` (fetch, call, log, signal) and turns the call's end into
 * something the worker reads without walking objects: a state and a JSON text.
 *
 * The host functions are passed in, never put on globalThis, so a script reaches the host only
 * through ctx and console. The intrinsics the prelude uses are taken before the script runs: a
 * script that replaces JSON or Promise changes its own results, nothing else.
 */
import { SCRIPT_LIMITS } from '../../../shared/model/script-limits';

export const PRELUDE = String.raw`(function (hostLog, hostOp, hostTimer, hostClear) {
  'use strict';
  var g = globalThis;
  var stringify = JSON.stringify, parse = JSON.parse, keys = Object.keys, freeze = Object.freeze;
  var PromiseCtor = Promise, resolved = Promise.resolve.bind(Promise), StringCtor = String, MapCtor = Map;
  var MAX_LINE = ${SCRIPT_LIMITS.logLineChars};
  var MAX_ERROR_NAME = 200, MAX_ERROR_MESSAGE = 4096;

  class ToolError extends Error {
    constructor(message, code, details) {
      super(message);
      this.name = 'ToolError';
      this.code = code === undefined ? 'UNAVAILABLE' : code;
      if (details !== undefined) this.details = details;
    }
  }

  function show(v) {
    if (typeof v === 'string') return v;
    if (v === undefined) return 'undefined';
    if (typeof v === 'function') return '[function ' + (v.name || 'anonymous') + ']';
    if (typeof v === 'symbol' || typeof v === 'bigint') return StringCtor(v);
    try {
      if (v instanceof Error) return v.name + ': ' + v.message;
      var s = stringify(v);
      return s === undefined ? StringCtor(v) : s;
    } catch (e) {
      return '[a value that cannot be shown]';
    }
  }
  function line(values) {
    var out = '';
    for (var i = 0; i < values.length && out.length <= MAX_LINE; i++) out += (i ? ' ' : '') + show(values[i]);
    return out.length > MAX_LINE ? out.slice(0, MAX_LINE) + '\u2026' : out;
  }
  function logger(level) {
    return function () { hostLog(level, line(arguments)); };
  }
  var log = logger('log');

  // An error's name and message are cut (saying so) as the worker cuts them: the output limit
  // bounds a result, these bound a failure.
  function cut(text, max) {
    return text.length <= max ? text : text.slice(0, max) + '\u2026 (cut: ' + text.length + ' characters in all)';
  }
  function describe(e) {
    try {
      if (e !== null && typeof e === 'object' && 'message' in e) {
        return {
          name: cut(StringCtor(e.name || 'Error'), MAX_ERROR_NAME),
          message: cut(StringCtor(e.message), MAX_ERROR_MESSAGE),
          stack: typeof e.stack === 'string' ? e.stack.slice(0, MAX_ERROR_MESSAGE * 2) : undefined,
          // A ToolError's code (a failed ctx.call or ctx.fetch, or one the script threw) is kept.
          code: e instanceof ToolError && typeof e.code === 'string' ? e.code : undefined,
        };
      }
      return { name: 'Error', message: 'the script threw ' + cut(show(e), MAX_ERROR_MESSAGE) };
    } catch (x) {
      return { name: 'Error', message: 'the script threw a value that cannot be described' };
    }
  }

  // ---- the running call ---------------------------------------------------------------------
  var current = null;
  /** The script's run, kept when the script is loaded. */
  var runFn = null;

  function finish(c, ok, v) {
    if (c.done) return;
    c.done = true;
    if (!ok) {
      c.state = 2;
      c.error = stringify(describe(v));
      return;
    }
    var json;
    try {
      json = stringify(v === undefined ? null : v);
    } catch (e) {
      c.state = 2;
      c.error = stringify({ name: 'TypeError', message: 'the result cannot be turned into JSON: ' + describe(e).message, notJson: true });
      return;
    }
    if (json === undefined) json = 'null';
    if (json.length > c.maxOutput) {
      c.state = 2;
      c.error = stringify({ name: 'RangeError', message: 'too large', tooLarge: json.length });
      return;
    }
    c.state = 1;
    c.json = json;
  }

  // A call's signal is made when the script first reads ctx.signal (most never do); one made after
  // the cancel is aborted already.
  function makeSignal(c) {
    var listeners = [];
    var signal = {
      aborted: c.aborted,
      reason: c.reason,
      onabort: null,
      addEventListener: function (type, fn) { if (type === 'abort' && typeof fn === 'function') listeners.push(fn); },
      removeEventListener: function (type, fn) { var i = listeners.indexOf(fn); if (i >= 0) listeners.splice(i, 1); },
      throwIfAborted: function () { if (signal.aborted) throw signal.reason; },
    };
    function abort(reason) {
      if (signal.aborted) return;
      signal.aborted = true;
      signal.reason = reason;
      var ev = { type: 'abort', target: signal };
      var all = (typeof signal.onabort === 'function' ? [signal.onabort] : []).concat(listeners);
      for (var i = 0; i < all.length; i++) {
        try { all[i].call(signal, ev); } catch (e) { hostLog('error', 'an abort listener threw: ' + show(e)); }
      }
    }
    return { signal: signal, abort: abort };
  }
  function abortCall(c, reason) {
    if (c.aborted) return;
    c.aborted = true;
    c.reason = reason;
    if (c.sig) c.sig.abort(reason);
  }

  function op(kind, payload) {
    var text = stringify(payload);
    return hostOp(kind, text).then(function (answer) {
      var r = parse(answer);
      if (r.ok) return r.value;
      throw new ToolError(r.error.message, r.error.code);
    });
  }

  function hasHeader(headers, name) {
    var ks = keys(headers);
    for (var i = 0; i < ks.length; i++) if (ks[i].toLowerCase() === name) return true;
    return false;
  }

  function fetchFn(url, init) {
    if (typeof url !== 'string') throw new TypeError('ctx.fetch(url, init): url must be a string');
    if (init === undefined || init === null) init = {};
    if (typeof init !== 'object') throw new TypeError('ctx.fetch(url, init): init must be an object');
    var headers = {};
    if (init.headers !== undefined && init.headers !== null) {
      if (typeof init.headers !== 'object') throw new TypeError('ctx.fetch: headers must be an object of names to values');
      var hk = keys(init.headers);
      for (var i = 0; i < hk.length; i++) headers[hk[i]] = StringCtor(init.headers[hk[i]]);
    }
    var body;
    if (init.body !== undefined && init.body !== null) {
      if (typeof init.body === 'string') body = init.body;
      else {
        body = stringify(init.body);
        if (!hasHeader(headers, 'content-type')) headers['Content-Type'] = 'application/json';
      }
    }
    var payload = { url: url, method: init.method === undefined ? 'GET' : StringCtor(init.method).toUpperCase(), headers: headers };
    if (body !== undefined) payload.body = body;
    if (typeof init.timeoutMs === 'number') payload.timeoutMs = init.timeoutMs;
    return op('fetch', payload).then(function (r) {
      var text = r.body;
      return freeze({
        status: r.status,
        ok: r.status >= 200 && r.status < 300,
        url: r.url,
        redirected: r.redirected,
        headers: freeze(r.headers),
        text: function () { return resolved(text); },
        json: function () { return new PromiseCtor(function (res) { res(parse(text)); }); },
      });
    });
  }

  function callFn(tool, args) {
    if (typeof tool !== 'string' && (tool === null || typeof tool !== 'object')) {
      throw new TypeError("ctx.call(tool, args): tool is 'slug', 'bundle/slug', 'bundle/slug@version' or {bundleId, slug, version}");
    }
    return op('call', { tool: tool, args: args === undefined ? {} : args });
  }

  // ---- timers: the host keeps one real timer per pending one; all are cleared when the call ends --
  var timers = new MapCtor();
  var nextTimer = 1;
  function arm(fn, ms, args, interval) {
    if (typeof fn !== 'function') throw new TypeError('setTimeout and setInterval take a function (a string is not run)');
    var delay = Number(ms) > 0 ? Number(ms) : 0;
    var id = nextTimer++;
    hostTimer(id, delay);
    timers.set(id, { fn: fn, args: args, interval: interval, ms: delay });
    return id;
  }
  function disarm(id) {
    if (timers.delete(id)) hostClear(id);
  }
  function fire(id) {
    var t = timers.get(id);
    if (!t) return;
    if (t.interval) hostTimer(id, t.ms);
    else timers.delete(id);
    try {
      t.fn.apply(undefined, t.args);
    } catch (e) {
      // Like an uncaught error in a timer anywhere else: the call fails with it.
      if (current) finish(current, false, e);
    }
  }
  function rest(args, from) {
    var out = [];
    for (var i = from; i < args.length; i++) out.push(args[i]);
    return out;
  }

  function blocked(name, instead) {
    return function () { throw new ToolError(name + ' is not available in a script tool: ' + instead, 'FORBIDDEN'); };
  }

  g.console = freeze({ log: log, info: logger('info'), warn: logger('warn'), error: logger('error'), debug: log });
  g.setTimeout = function (fn, ms) { return arm(fn, ms, rest(arguments, 2), false); };
  g.setInterval = function (fn, ms) { return arm(fn, ms, rest(arguments, 2), true); };
  g.clearTimeout = function (id) { disarm(id); };
  g.clearInterval = function (id) { disarm(id); };
  g.queueMicrotask = function (fn) { resolved().then(function () { fn(); }); };
  g.ToolError = ToolError;
  g.require = blocked('require', 'a script has no modules, files or processes; use ctx.call(tool, args) to run another tool');
  g.fetch = blocked('fetch', 'use ctx.fetch(url, init): it goes through Settings \u2192 Allowed hosts');
  g.XMLHttpRequest = blocked('XMLHttpRequest', 'use ctx.fetch(url, init)');
  g.setImmediate = blocked('setImmediate', 'use setTimeout(fn, 0)');

  return freeze({
    parse: function (text) { return parse(text); },
    load: function (fn) { runFn = fn; },
    /**
     * Starts a call: its args parsed, its ctx made, run called. Answers its outcome at once when
     * run returned a value (not a promise) or threw: the JSON text of the result (a string), or
     * 2 for an error (read it with error()); 0 while it is pending (settle() answers the same
     * after the jobs ran).
     */
    go: function (argsText, invocationId, maxOutput) {
      var c = (current = { done: false, state: 0, json: undefined, error: undefined, maxOutput: maxOutput, aborted: false, reason: undefined, sig: null });
      var ctx = freeze({
        fetch: fetchFn,
        call: callFn,
        log: log,
        get signal() { return (c.sig || (c.sig = makeSignal(c))).signal; },
        invocationId: invocationId,
      });
      try {
        var value = runFn(parse(argsText), ctx);
        if (value !== null && (typeof value === 'object' || typeof value === 'function') && typeof value.then === 'function') {
          resolved(value).then(function (v) { finish(c, true, v); }, function (e) { finish(c, false, e); });
        } else finish(c, true, value);
      } catch (e) {
        finish(c, false, e);
      }
      return c.state === 1 ? c.json : c.state;
    },
    settle: function () {
      var c = current;
      if (!c) return 0;
      return c.state === 1 ? c.json : c.state;
    },
    error: function () { return current.error; },
    fire: fire,
    abort: function (message) {
      if (!current) return;
      var reason = new ToolError(message, 'CANCELLED');
      reason.name = 'AbortError';
      abortCall(current, reason);
    },
    pendingTimers: function () { return timers.size; },
    end: function () {
      timers.clear();
      current = null;
    },
  });
})`;
