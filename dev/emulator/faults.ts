/**
 * Fault injection: rules matched against "METHOD /mount/path" (e.g. "GET /wm/api/job/AB12").
 * Latency-only rules add up and let the request through; the first matching rule with an action
 * (status, drop, malformed, body, errorCode) decides the answer. `times` counts applications;
 * `skip` lets the first matching requests through before the rule applies.
 */
import type { FaultInjector, FaultRule } from './types.js';

interface LiveRule {
  rule: FaultRule;
  remaining: number;
  /** Matching requests still to let through before the rule applies. */
  skip: number;
}

export interface FaultDecision {
  latencyMs: number;
  action?: FaultRule;
}

function hasAction(r: FaultRule): boolean {
  return (
    r.status !== undefined ||
    r.drop === true ||
    r.malformed === true ||
    r.body !== undefined ||
    r.errorCode !== undefined
  );
}

function matches(rule: FaultRule, key: string): boolean {
  if (rule.match === undefined) return true;
  if (typeof rule.match === 'string') return key.includes(rule.match);
  rule.match.lastIndex = 0;
  return rule.match.test(key);
}

export class Faults implements FaultInjector {
  private rules: LiveRule[] = [];

  add(rule: FaultRule): void {
    this.rules.push({ rule, remaining: rule.times ?? Number.POSITIVE_INFINITY, skip: rule.skip ?? 0 });
  }

  clear(): void {
    this.rules = [];
  }

  /** Decides what happens to one request and consumes the `times` of the rules applied. */
  take(key: string): FaultDecision {
    const decision: FaultDecision = { latencyMs: 0 };
    for (const live of this.rules) {
      if (live.remaining <= 0 || !matches(live.rule, key)) continue;
      if (live.skip > 0) {
        live.skip -= 1;
        continue;
      }
      live.remaining -= 1;
      decision.latencyMs += live.rule.latencyMs ?? 0;
      if (hasAction(live.rule)) {
        decision.action = live.rule;
        break;
      }
    }
    this.rules = this.rules.filter((r) => r.remaining > 0);
    return decision;
  }
}
