/**
 * The published declarations carry hand-written types instead of zod's (zod's declarations do not compile under the
 * CommonJS tsconfig `cdk init` writes). These assignments, checked by `npm run typecheck`, fail when a schema and its
 * published type drift apart: whatever a schema accepts or returns must fit the type users see.
 */
import type { z } from 'zod';
import { priceFileSchema, type PriceFileInput } from '../../lib/catalog';
import { compileSpecSchema, type CompileSpecInput } from '../../lib/compile';
import { environmentsInputSchema, type EnvironmentsInput } from '../../lib/environments';
import type { GenerativePlan } from '../../lib/generative';
import { generativePlanSchema } from '../../lib/plan-document/generative-schema';
import { singleCallPlanSchema } from '../../lib/plan-document/schema';
import type { Plan } from '../../lib/planner';
import {
  deploymentRecordSchema, evidenceSchema, generativeDeploymentRecordSchema, releaseRecordSchema, smokeReportSchema,
  type DeploymentRecord, type Evidence, type GenerativeDeploymentRecord, type ReleaseRecord, type SmokeReport,
} from '../../lib/release';

function fits<T>(value: T): T {
  return value;
}

describe('the published types match the zod schemas they stand for', () => {
  test('inputs and parsed records fit their published types', () => {
    const checks = [
      fits<PriceFileInput>({} as z.input<ReturnType<typeof priceFileSchema>>),
      fits<CompileSpecInput>({} as z.input<ReturnType<typeof compileSpecSchema>>),
      fits<EnvironmentsInput>({} as z.input<ReturnType<typeof environmentsInputSchema>>),
      fits<DeploymentRecord>({} as z.output<ReturnType<typeof deploymentRecordSchema>>),
      fits<Evidence>({} as z.output<ReturnType<typeof evidenceSchema>>),
      fits<GenerativeDeploymentRecord>({} as z.output<ReturnType<typeof generativeDeploymentRecordSchema>>),
      fits<ReleaseRecord>({} as z.output<ReturnType<typeof releaseRecordSchema>>),
      fits<SmokeReport>({} as z.output<ReturnType<typeof smokeReportSchema>>),
      // The plan readers return the object they checked, typed: what the schema accepts must be a whole plan.
      fits<Plan>({} as z.output<ReturnType<typeof singleCallPlanSchema>>),
      fits<GenerativePlan>({} as z.output<ReturnType<typeof generativePlanSchema>>),
    ];
    expect(checks).toHaveLength(10);
  });
});
