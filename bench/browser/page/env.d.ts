/// <reference types="vite/client" />

/** voy-search's wasm-bindgen glue, imported directly so the page can instantiate the .wasm itself (see peers/voy.ts). */
declare module 'voy-search/voy_search_bg.js' {
  export * from 'voy-search';
  export function __wbg_set_wasm(exports: WebAssembly.Exports): void;
}
