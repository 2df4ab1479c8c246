export const PLANS = ['free', 'publisher', 'business', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export function planAtLeast(plan: string, minimum: Plan): boolean {
  return PLANS.indexOf(plan as Plan) >= PLANS.indexOf(minimum);
}
