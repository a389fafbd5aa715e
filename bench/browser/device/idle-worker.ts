/// <reference lib="webworker" />
/** A worker that does nothing: the harness times a busy loop in it over the DevTools protocol, capped and uncapped (bench/browser/device/throttle.ts). */
postMessage('started');
