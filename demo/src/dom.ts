/**
 * A tiny element builder. Every piece of text goes through `textContent`
 * (never innerHTML), so memory text such as `<img src=x onerror=...>` is
 * shown as text and never executed.
 */
type Child = Node | string | number | null | undefined | false;
type Props = Record<string, string | number | boolean | ((event: Event) => void) | undefined>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: (Child | Child[])[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(key.replace(/^on/, '').toLowerCase(), value);
    else if (key === 'value' && 'value' in el) (el as HTMLInputElement).value = String(value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

export function mount(target: Element, ...children: (Child | Child[])[]): void {
  target.replaceChildren(...children.flat().filter((c): c is Node | string => c !== null && c !== undefined && c !== false).map((c) => (c instanceof Node ? c : String(c))));
}

export const fmtDate = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 16);
export const fmt = (n: number, digits = 3) => (Number.isFinite(n) ? n.toFixed(digits) : String(n));
