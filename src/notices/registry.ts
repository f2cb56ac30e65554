/**
 * Which workspaces have something for a notify feature (tracked requests, alert subscriptions,
 * digest schedules): the runtime's work list, so a workspace with nothing to watch costs no
 * service call. One document per feature under the `_global` key, updated atomically (two
 * replicas registering at once both stay). A workspace is removed when the feature finds it empty.
 */
import type { AtomicDocRepo, Store } from '../store/types.js';

export const NOTIFY_REGISTRY_NS = 'notify-registry';
const GLOBAL = '_global';

export type NotifyFeature = 'requests' | 'alerts' | 'digest';

export class FeatureRegistry {
  private readonly docs: AtomicDocRepo<{ workspaces: string[] }>;
  constructor(store: Store) {
    this.docs = store.docs<{ workspaces: string[] }>(NOTIFY_REGISTRY_NS);
  }

  async workspaces(feature: NotifyFeature): Promise<string[]> {
    return (await this.docs.get(GLOBAL, feature))?.workspaces ?? [];
  }

  async add(feature: NotifyFeature, ws: string): Promise<void> {
    if ((await this.workspaces(feature)).includes(ws)) return;
    await this.docs.update(GLOBAL, feature, (old) => {
      const list = old?.workspaces ?? [];
      return list.includes(ws) ? old : { workspaces: [...list, ws] };
    });
  }

  async remove(feature: NotifyFeature, ws: string): Promise<void> {
    if (!(await this.workspaces(feature)).includes(ws)) return;
    await this.docs.update(GLOBAL, feature, (old) => {
      const list = old?.workspaces ?? [];
      return { workspaces: list.filter((w) => w !== ws) };
    });
  }
}
