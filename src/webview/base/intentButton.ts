import { asyncHandler, h, setText, type Child } from './dom';
import { request, type Request } from './messaging';

/**
 * A small secondary button that sends `message` when pressed (disabled while it waits), and the slot that shows the
 * reply's error, or `failed`: the caller places it beside the button.
 */
export function intentButton(message: Request, failed: string, ...content: Child[]): { button: HTMLButtonElement; error: HTMLElement } {
  const error = h('span', { class: 'error-text', role: 'alert', aria: { live: 'assertive' } });
  const button = h(
    'button',
    {
      type: 'button',
      class: 'secondary small',
      onclick: asyncHandler(async () => {
        setText(error, '');
        button.disabled = true;
        const reply = await request(message);
        button.disabled = false;
        if (!reply.ok) setText(error, reply.error ?? failed);
      }),
    },
    ...content,
  );
  return { button, error };
}
