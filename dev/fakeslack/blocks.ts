/**
 * Block Kit validation as Slack applies it. Returns Slack-style messages
 * ("[ERROR] must be less than 3001 characters [json-pointer:/blocks/0/text/text]"), empty when valid.
 * Limits from https://api.slack.com/reference/block-kit (blocks, composition objects, elements).
 */

type Obj = Record<string, unknown>;

const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);

class Checker {
  readonly errors: string[] = [];
  err(path: string, msg: string) {
    this.errors.push(`[ERROR] ${msg} [json-pointer:${path}]`);
  }
  maxLen(path: string, value: unknown, max: number) {
    if (typeof value === 'string' && value.length > max)
      this.err(path, `must be less than ${max + 1} characters`);
  }
  maxItems(path: string, value: unknown, max: number) {
    if (Array.isArray(value) && value.length > max) this.err(path, `must provide no more than ${max} items`);
  }
  /** A text composition object. */
  text(path: string, t: unknown, max: number, opts: { plainOnly?: boolean; required?: boolean } = {}) {
    if (t === undefined) {
      if (opts.required) this.err(path, 'must provide an object');
      return;
    }
    if (!isObj(t)) return this.err(path, 'must provide an object');
    if (t.type !== 'plain_text' && t.type !== 'mrkdwn')
      return this.err(`${path}/type`, 'must be a valid enum value');
    if (opts.plainOnly && t.type !== 'plain_text') return this.err(`${path}/type`, 'must be plain_text');
    if (typeof t.text !== 'string') return this.err(`${path}/text`, 'must be a string');
    if (t.text.length === 0) return this.err(`${path}/text`, 'must be more than 0 characters');
    this.maxLen(`${path}/text`, t.text, max);
  }
  confirm(path: string, c: unknown) {
    if (c === undefined) return;
    if (!isObj(c)) return this.err(path, 'must provide an object');
    this.text(`${path}/title`, c.title, 100, { plainOnly: true, required: true });
    this.text(`${path}/text`, c.text, 300, { required: true });
    this.text(`${path}/confirm`, c.confirm, 30, { plainOnly: true, required: true });
    this.text(`${path}/deny`, c.deny, 30, { plainOnly: true, required: true });
    if (c.style !== undefined && c.style !== 'primary' && c.style !== 'danger')
      this.err(`${path}/style`, 'must be a valid enum value');
  }
  option(path: string, o: unknown) {
    if (!isObj(o)) return this.err(path, 'must provide an object');
    this.text(`${path}/text`, o.text, 75, { required: true });
    if (typeof o.value !== 'string') this.err(`${path}/value`, 'must be a string');
    this.maxLen(`${path}/value`, o.value, 150);
    this.text(`${path}/description`, o.description, 75);
  }
  options(path: string, opts: unknown, max: number) {
    if (opts === undefined) return;
    if (!Array.isArray(opts)) return this.err(path, 'must provide an array');
    this.maxItems(path, opts, max);
    opts.forEach((o, i) => {
      this.option(`${path}/${i}`, o);
    });
  }
  element(path: string, e: unknown, context: 'actions' | 'section' | 'input' | 'context') {
    if (!isObj(e)) return this.err(path, 'must provide an object');
    const type = e.type;
    if (context === 'context') {
      if (type === 'image') {
        if (typeof e.alt_text !== 'string') this.err(`${path}/alt_text`, 'must be a string');
        this.maxLen(`${path}/alt_text`, e.alt_text, 2000);
        return;
      }
      if (type === 'plain_text' || type === 'mrkdwn') return this.text(path, e, 3000);
      return this.err(`${path}/type`, 'must be a valid enum value');
    }
    if (e.action_id !== undefined) {
      if (typeof e.action_id !== 'string') this.err(`${path}/action_id`, 'must be a string');
      this.maxLen(`${path}/action_id`, e.action_id, 255);
    }
    this.confirm(`${path}/confirm`, e.confirm);
    switch (type) {
      case 'button':
        this.text(`${path}/text`, e.text, 75, { plainOnly: true, required: true });
        this.maxLen(`${path}/value`, e.value, 2000);
        this.maxLen(`${path}/url`, e.url, 3000);
        if (e.style !== undefined && e.style !== 'primary' && e.style !== 'danger')
          this.err(`${path}/style`, 'must be a valid enum value');
        return;
      case 'static_select':
      case 'multi_static_select':
        this.text(`${path}/placeholder`, e.placeholder, 150, { plainOnly: true });
        if (e.options === undefined && e.option_groups === undefined)
          this.err(path, 'must provide either options or option_groups');
        this.options(`${path}/options`, e.options, 100);
        if (Array.isArray(e.option_groups)) {
          this.maxItems(`${path}/option_groups`, e.option_groups, 100);
          e.option_groups.forEach((g, i) => {
            if (!isObj(g)) {
              this.err(`${path}/option_groups/${i}`, 'must provide an object');
              return;
            }
            this.text(`${path}/option_groups/${i}/label`, g.label, 75, { plainOnly: true, required: true });
            this.options(`${path}/option_groups/${i}/options`, g.options, 100);
          });
        }
        if (e.initial_option !== undefined) this.option(`${path}/initial_option`, e.initial_option);
        return;
      case 'overflow':
        if (!Array.isArray(e.options)) return this.err(`${path}/options`, 'must provide an array');
        if (e.options.length < 1) this.err(`${path}/options`, 'must provide at least 1 items');
        this.options(`${path}/options`, e.options, 5);
        return;
      case 'radio_buttons':
      case 'checkboxes':
        this.options(`${path}/options`, e.options, 10);
        return;
      case 'plain_text_input':
        this.text(`${path}/placeholder`, e.placeholder, 150, { plainOnly: true });
        this.maxLen(`${path}/initial_value`, e.initial_value, 3000);
        if (typeof e.max_length === 'number' && e.max_length > 3000)
          this.err(`${path}/max_length`, 'must be <= 3000');
        return;
      case 'external_select':
      case 'multi_external_select':
      case 'users_select':
      case 'multi_users_select':
      case 'conversations_select':
      case 'multi_conversations_select':
      case 'channels_select':
      case 'multi_channels_select':
      case 'datepicker':
      case 'timepicker':
      case 'datetimepicker':
      case 'number_input':
      case 'email_text_input':
      case 'url_text_input':
      case 'file_input':
        this.text(`${path}/placeholder`, e.placeholder, 150, { plainOnly: true });
        return;
      case 'image':
        if (context === 'section') {
          this.maxLen(`${path}/alt_text`, e.alt_text, 2000);
          return;
        }
        return this.err(`${path}/type`, 'must be a valid enum value');
      default:
        return this.err(`${path}/type`, 'must be a valid enum value');
    }
  }
  block(path: string, b: unknown, surface: 'message' | 'modal' | 'home') {
    if (!isObj(b)) return this.err(path, 'must provide an object');
    if (b.block_id !== undefined) {
      if (typeof b.block_id !== 'string') this.err(`${path}/block_id`, 'must be a string');
      this.maxLen(`${path}/block_id`, b.block_id, 255);
    }
    switch (b.type) {
      case 'section': {
        if (b.text === undefined && b.fields === undefined)
          this.err(path, 'must provide either text or fields');
        this.text(`${path}/text`, b.text, 3000);
        if (b.fields !== undefined) {
          if (!Array.isArray(b.fields)) this.err(`${path}/fields`, 'must provide an array');
          else {
            this.maxItems(`${path}/fields`, b.fields, 10);
            b.fields.forEach((f, i) => {
              this.text(`${path}/fields/${i}`, f, 2000, { required: true });
            });
          }
        }
        if (b.accessory !== undefined) this.element(`${path}/accessory`, b.accessory, 'section');
        return;
      }
      case 'header':
        return this.text(`${path}/text`, b.text, 150, { plainOnly: true, required: true });
      case 'divider':
        return;
      case 'actions': {
        if (!Array.isArray(b.elements)) return this.err(`${path}/elements`, 'must provide an array');
        if (b.elements.length === 0) this.err(`${path}/elements`, 'must provide at least 1 items');
        this.maxItems(`${path}/elements`, b.elements, 25);
        const ids = new Set<string>();
        b.elements.forEach((e, i) => {
          this.element(`${path}/elements/${i}`, e, 'actions');
          const id = isObj(e) ? e.action_id : undefined;
          if (typeof id === 'string') {
            if (ids.has(id)) this.err(`${path}/elements/${i}/action_id`, 'must be unique within the block');
            ids.add(id);
          }
        });
        return;
      }
      case 'context': {
        if (!Array.isArray(b.elements)) return this.err(`${path}/elements`, 'must provide an array');
        if (b.elements.length === 0) this.err(`${path}/elements`, 'must provide at least 1 items');
        this.maxItems(`${path}/elements`, b.elements, 10);
        b.elements.forEach((e, i) => {
          this.element(`${path}/elements/${i}`, e, 'context');
        });
        return;
      }
      case 'input': {
        if (surface === 'message') return this.err(`${path}/type`, 'input blocks are only allowed in modals');
        this.text(`${path}/label`, b.label, 2000, { plainOnly: true, required: true });
        this.text(`${path}/hint`, b.hint, 2000, { plainOnly: true });
        if (b.element === undefined) return this.err(`${path}/element`, 'must provide an object');
        return this.element(`${path}/element`, b.element, 'input');
      }
      case 'image':
        if (typeof b.image_url !== 'string' && b.slack_file === undefined)
          this.err(`${path}/image_url`, 'must provide a string');
        this.maxLen(`${path}/image_url`, b.image_url, 3000);
        if (typeof b.alt_text !== 'string') this.err(`${path}/alt_text`, 'must provide a string');
        this.maxLen(`${path}/alt_text`, b.alt_text, 2000);
        this.text(`${path}/title`, b.title, 2000, { plainOnly: true });
        return;
      case 'rich_text':
      case 'file':
      case 'video':
      case 'markdown':
        return;
      default:
        return this.err(`${path}/type`, 'must be a valid enum value');
    }
  }
  blocks(path: string, blocks: unknown, max: number, surface: 'message' | 'modal' | 'home') {
    if (blocks === undefined) return;
    if (!Array.isArray(blocks)) return this.err(path, 'must provide an array');
    if (blocks.length > max) this.err(path, `must provide no more than ${max} items`);
    const ids = new Set<string>();
    blocks.forEach((b, i) => {
      this.block(`${path}/${i}`, b, surface);
      const id = isObj(b) ? b.block_id : undefined;
      if (typeof id === 'string') {
        if (ids.has(id)) this.err(`${path}/${i}/block_id`, 'must be unique within the surface');
        ids.add(id);
      }
    });
  }
}

/** Validate a message's blocks (chat.postMessage, chat.update, postEphemeral, response_url). */
export function validateMessageBlocks(blocks: unknown): string[] {
  const c = new Checker();
  c.blocks('/blocks', blocks, 50, 'message');
  return c.errors;
}

/** Validate a view (views.open/update/push/publish). */
export function validateView(view: unknown): string[] {
  const c = new Checker();
  if (!isObj(view)) {
    c.err('/view', 'must provide an object');
    return c.errors;
  }
  if (view.type !== 'modal' && view.type !== 'home') {
    c.err('/view/type', 'must be a valid enum value');
    return c.errors;
  }
  const surface = view.type;
  c.blocks('/view/blocks', view.blocks, 100, surface);
  if (!Array.isArray(view.blocks)) c.err('/view/blocks', 'must provide an array');
  if (view.callback_id !== undefined) c.maxLen('/view/callback_id', view.callback_id, 255);
  if (view.external_id !== undefined) c.maxLen('/view/external_id', view.external_id, 255);
  if (view.private_metadata !== undefined) c.maxLen('/view/private_metadata', view.private_metadata, 3000);
  if (surface === 'modal') {
    c.text('/view/title', view.title, 24, { plainOnly: true, required: true });
    c.text('/view/submit', view.submit, 24, { plainOnly: true });
    c.text('/view/close', view.close, 24, { plainOnly: true });
    const hasInput =
      Array.isArray(view.blocks) && view.blocks.some((b) => isObj(b) && (b as Obj).type === 'input');
    if (hasInput && view.submit === undefined)
      c.err('/view/submit', 'must provide submit when the view has inputs');
  }
  return c.errors;
}

/**
 * Problems Slack finds in the answer to a view_submission (the HTTP body of the ack), empty when
 * it takes it: `errors` keyed by a block that is not an input of the submitted form (Slack refuses
 * the answer and the user sees a generic error), an `update` / `push` view it would refuse, half
 * of a surrogate pair anywhere. `answered` are the block ids the submission carried values for
 * (a form opened by an older version has inputs the current one does not).
 */
export function viewAckProblems(
  submitted: { blocks?: unknown },
  answered: readonly string[],
  ack: unknown,
): string[] {
  if (!isObj(ack)) return [];
  const out: string[] = [];
  if (hasLoneSurrogate(ack)) out.push('half of a surrogate pair in the answer');
  if (ack.response_action === 'errors') {
    const inputs = new Set(answered);
    if (Array.isArray(submitted.blocks))
      for (const b of submitted.blocks)
        if (isObj(b) && b.type === 'input' && typeof b.block_id === 'string') inputs.add(b.block_id);
    if (!isObj(ack.errors)) out.push('errors must be an object');
    else
      for (const [k, v] of Object.entries(ack.errors)) {
        if (!inputs.has(k)) out.push(`errors: "${k}" is not an input block of the form`);
        if (typeof v !== 'string' || v.length === 0) out.push(`errors: "${k}" needs a message`);
      }
  }
  if (ack.response_action === 'update' || ack.response_action === 'push') out.push(...validateView(ack.view));
  return out;
}

/**
 * Does any string of a payload hold half of a surrogate pair (text cut at a UTF-16 length)?
 * Slack refuses such a payload whole, as invalid JSON (`JSON.stringify` writes the half as a
 * `\udXXX` escape that no UTF-8 text can carry).
 */
export function hasLoneSurrogate(v: unknown): boolean {
  if (typeof v === 'string') return /[\ud800-\udfff]/u.test(v);
  if (Array.isArray(v)) return v.some(hasLoneSurrogate);
  if (isObj(v)) return Object.values(v).some(hasLoneSurrogate);
  return false;
}
