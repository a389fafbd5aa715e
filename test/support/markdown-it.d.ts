/**
 * The part of markdown-it's API the documentation checks use. markdown-it
 * ships no types and @types/markdown-it is not installed; it is here as
 * TypeDoc's own dependency.
 */
declare module 'markdown-it' {
  export interface Token {
    type: string;
    tag: string;
    info: string;
    content: string;
    map: [number, number] | null;
    children: Token[] | null;
    attrGet(name: string): string | null;
  }
  export default class MarkdownIt {
    constructor(options?: { html?: boolean });
    parse(source: string, env: object): Token[];
  }
}
