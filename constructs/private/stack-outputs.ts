import { CfnOutput } from 'aws-cdk-lib';
import type { Construct } from 'constructs';

/**
 * An inference stack's outputs (what to call, where its images go, what the planner chose), from one table of
 * `id: [description, value]` in the order the template lists them: each hosting's stack names its own rows.
 */
export function stackOutputs(stack: Construct, outputs: Readonly<Record<string, readonly [description: string, value: string]>>): void {
  for (const [id, [description, value]] of Object.entries(outputs)) {
    new CfnOutput(stack, id, { description, value });
  }
}
