import { Annotations, Aws, CfnRule, Fn, Token } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { throwIfProblems } from '../private/construct-errors';

/** Props of {@link DeployRefusal}. */
export interface DeployRefusalProps {
  /**
   * Why a deploy of this stack cannot work and how to fix it, in the user's terms.
   *
   * CloudFormation shows it as the rule's `AssertDescription` when it refuses the deploy; synth shows it as a
   * warning.
   */
  readonly message: string;

  /**
   * Refuse only when the stack is deployed to this account, e.g. a placeholder account id.
   *
   * @default - refuse in every account: the problem is in the template itself (a placeholder image digest, model
   * files missing from the asset), so no account can run it
   */
  readonly account?: string;
}

/**
 * Stops `cdk deploy` of its stack before CloudFormation creates or changes any resource, while `cdk synth` keeps
 * working (with a warning), so an example with placeholders synthesizes offline but cannot half-deploy.
 *
 * It adds a template rule (the `Rules` section) whose assertion is false. CloudFormation evaluates rules when it
 * creates a change set or a stack, after resolving parameters and before touching any resource, and refuses the
 * operation with the rule's `AssertDescription`; `cdk deploy` prints it and exits non-zero. CDK's own
 * `CheckBootstrapVersion` rule stops deploys to an outdated bootstrap stack the same way.
 *
 * CloudFormation documents rules as checks of parameter values, and every documented example references one, so
 * each assertion here references the `AWS::AccountId` pseudo parameter rather than comparing literals only:
 * `Not(Equals(AccountId, <account>))` with `account`, else `Not(Equals(AccountId, AccountId))`, false in every
 * account. No template parameter is added: the CDK CLI reuses a parameter's previous value over its new default
 * on updates, so a refusal carried in a parameter could stick after it was fixed.
 *
 * What `cdk deploy` still does before CloudFormation refuses: it publishes the stack's file assets (Lambda code, the
 * model-data zip) to the bootstrap staging bucket, as for any deploy. No resource of the stack exists afterwards.
 *
 * @see https://docs.aws.amazon.com/AWSCloudFormation/latest/UserGuide/rules-section-structure.html
 */
export class DeployRefusal extends Construct {
  /** The template rule that refuses the deploy. */
  readonly rule: CfnRule;

  constructor(scope: Construct, id: string, props: DeployRefusalProps) {
    super(scope, id);
    const problems: string[] = [];
    if (props.message.trim() === '') {
      problems.push(`message is blank; say why the deploy cannot work and how to fix it`);
    }
    if (props.account !== undefined && !Token.isUnresolved(props.account) && !/^\d{12}$/.test(props.account)) {
      problems.push(`account=${JSON.stringify(props.account)} is not a 12-digit AWS account id`);
    }
    throwIfProblems(this, problems);

    const refused = props.account ?? Aws.ACCOUNT_ID;
    this.rule = new CfnRule(this, 'Rule', {
      assertions: [{
        assert: Fn.conditionNot(Fn.conditionEquals(Aws.ACCOUNT_ID, refused)),
        assertDescription: props.message,
      }],
    });
    const where = props.account === undefined ? '' : ` to account ${props.account}`;
    Annotations.of(scope).addWarningV2(`@cdk-inferentia/deploy-refusal:${id}`,
      `${props.message} (synth works; \`cdk deploy\`${where} is refused by CloudFormation before any resource is `
      + 'created)');
  }
}
