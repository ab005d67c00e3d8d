import { Resource } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as iam from 'aws-cdk-lib/aws-iam';
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
