// A stand-in for the few DOM calls the webview's renderers make (they build nodes through `document`): it records the
// nodes, so a test can read what the user would see without a browser.

export class FakeNode {
  readonly childNodes: FakeNode[] = [];
  readonly attributes = new Map<string, string>();
  readonly listeners = new Map<string, ((e: unknown) => void)[]>();
  classList = { add() {}, remove() {}, toggle() {} };
  dataset: Record<string, string> = {};
  style = { setProperty() {} };
  value = '';
  className = '';
  constructor(
    readonly tagName: string,
    public data = '',
  ) {}
  get name(): string {
    return this.attributes.get('name') ?? '';
  }
  /** A form's controls (inputs and selects below it), as `HTMLFormElement.elements`. */
  get elements(): FakeNode[] {
    const out: FakeNode[] = [];
    const walk = (n: FakeNode) => {
      if (n.tagName === 'input' || n.tagName === 'select') out.push(n);
      n.childNodes.forEach(walk);
    };
    this.childNodes.forEach(walk);
    return out;
  }
  appendChild(child: FakeNode): FakeNode {
    this.childNodes.push(child);
    return child;
  }
  append(...children: (FakeNode | string)[]): void {
    for (const c of children) this.appendChild(typeof c === 'string' ? new FakeNode('#text', c) : c);
  }
  replaceChildren(...children: FakeNode[]): void {
    this.childNodes.splice(0, this.childNodes.length, ...children);
  }
  setAttribute(name: string, value: string): void {
    this.attributes.set(name, String(value));
  }
  getAttribute(name: string): string | null {
    return this.attributes.get(name) ?? null;
  }
  addEventListener(type: string, fn: (e: unknown) => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), fn]);
  }
  dispatch(type: string): void {
    for (const fn of this.listeners.get(type) ?? []) fn({ target: this, preventDefault() {} });
  }
  replaceWith(): void {}
  querySelector(): null {
    return null;
  }
  focus(): void {}
  reportValidity(): boolean {
    return true;
  }
  get textContent(): string {
    return this.tagName === '#text' ? this.data : this.childNodes.map((c) => c.textContent).join('');
  }
  set textContent(text: string) {
    this.childNodes.splice(0, this.childNodes.length, new FakeNode('#text', text));
  }
}

export function find(node: FakeNode, test: (n: FakeNode) => boolean, out: FakeNode[] = []): FakeNode[] {
  if (test(node)) out.push(node);
  for (const c of node.childNodes) find(c, test, out);
  return out;
}
export const byClass = (node: FakeNode, cls: string) => find(node, (n) => n.className.split(' ').includes(cls));

/** Installs the stand-in `document` and the webview API (`acquireVsCodeApi`): posts go to `posted`, `state` is the saved UI state. */
export function installFakeDom(posted: unknown[], state: { open: Record<string, boolean>; drafts: Record<string, string> }): void {
  const g = globalThis as Record<string, unknown>;
  g.Node = FakeNode;
  g.document = {
    createElement: (tag: string) => new FakeNode(tag),
    createTextNode: (text: string) => new FakeNode('#text', text),
    getElementById: () => null,
  };
  g.acquireVsCodeApi = () => ({
    postMessage: (m: unknown) => posted.push(m),
    getState: () => state,
    setState() {},
  });
}
