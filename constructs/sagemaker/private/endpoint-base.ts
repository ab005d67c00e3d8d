import { Resource } from 'aws-cdk-lib';
import * as appscaling from 'aws-cdk-lib/aws-applicationautoscaling';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct, IDependable } from 'constructs';
import type { INeuronSageMakerEndpoint } from '../endpoint-props';

/** CloudWatch namespace of SageMaker endpoint invocation metrics. */
const NAMESPACE = 'AWS/SageMaker';

/** The grants and metrics every endpoint offers, defined here or imported. */
export abstract class EndpointBase extends Resource implements INeuronSageMakerEndpoint {
  abstract readonly endpointName: string;
  abstract readonly endpointArn: string;
  abstract readonly variantName: string;

  grantInvoke(grantee: iam.IGrantable): iam.Grant {
    return iam.Grant.addToPrincipal({
      grantee,
      actions: ['sagemaker:InvokeEndpoint'],
      resourceArns: [this.endpointArn],
    });
  }

  metricInvocations(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('Invocations', { statistic: cloudwatch.Stats.SUM, ...options });
  }

  metricModelLatency(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('ModelLatency', { statistic: cloudwatch.Stats.p(99), unit: cloudwatch.Unit.MICROSECONDS, ...options });
  }

  metric5xxErrors(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('Invocation5XXErrors', { statistic: cloudwatch.Stats.SUM, ...options });
  }

  metric(metricName: string, options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: NAMESPACE,
      metricName,
      dimensionsMap: { EndpointName: this.endpointName, VariantName: this.variantName },
      ...options,
    });
  }

  metricInvocation4xxErrors(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('Invocation4XXErrors', { statistic: cloudwatch.Stats.SUM, ...options });
  }

  metricOverheadLatency(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('OverheadLatency', { statistic: cloudwatch.Stats.p(99), unit: cloudwatch.Unit.MICROSECONDS, ...options });
  }

  metricInvocationsPerInstance(options?: cloudwatch.MetricOptions): cloudwatch.Metric {
    return this.metric('InvocationsPerInstance', { statistic: cloudwatch.Stats.SUM, ...options });
  }
}

/**
 * The scalable target of a SageMaker variant or inference component, for both endpoints. The resource id is a plain
 * string, so the target registers only once `registered` (the endpoint or component it names) exists.
 */
export function sageMakerScalableTarget(scope: Construct, resourceId: string, scalableDimension: string,
  capacity: { min: number; max: number }, registered: IDependable): appscaling.ScalableTarget {
  const target = new appscaling.ScalableTarget(scope, 'ScalableTarget', {
    serviceNamespace: appscaling.ServiceNamespace.SAGEMAKER,
    resourceId,
    scalableDimension,
    minCapacity: capacity.min,
    maxCapacity: capacity.max,
  });
  target.node.addDependency(registered);
  return target;
}
