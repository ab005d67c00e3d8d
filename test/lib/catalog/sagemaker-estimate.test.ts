import { Catalog, parsePriceFile, sageMakerAvailability } from '../../../lib/catalog';

describe('SageMaker prices outside us-east-1 are estimated from the region\'s EC2 price, and say so', () => {
  const catalog = Catalog.builtIn();

  test('GIVEN eu-west-1 WHEN ml.inf2.xlarge is priced THEN it is the EC2 price there x the us-east-1 SageMaker/EC2 ratio of inf2.xlarge, marked ESTIMATE', () => {
    const ec2 = catalog.price('inf2.xlarge', 'eu-west-1', 'ec2')!;
    const smRef = catalog.price('inf2.xlarge', 'us-east-1', 'sagemaker')!;
    const ec2Ref = catalog.price('inf2.xlarge', 'us-east-1', 'ec2')!;
    const estimate = catalog.price('ml.inf2.xlarge', 'eu-west-1', 'sagemaker')!;
    expect(estimate.usdPerHour).toBeCloseTo((ec2.usdPerHour * smRef.usdPerHour) / ec2Ref.usdPerHour, 4);
    expect(estimate).toMatchObject({ region: 'eu-west-1', hosting: 'sagemaker', kind: 'on-demand', unverified: true });
    expect(estimate.estimate).toBe(
      `EC2 on-demand in eu-west-1 (${ec2.usdPerHour} USD/h) x the SageMaker/EC2 ratio of inf2.xlarge in us-east-1 ` +
        `(${smRef.usdPerHour} / ${ec2Ref.usdPerHour} = ${+(smRef.usdPerHour / ec2Ref.usdPerHour).toFixed(4)})`,
    );
    expect(estimate.source).toMatch(/^ESTIMATE: /);
  });

  test('GIVEN a type with no SageMaker price in us-east-1 (trn1n) THEN nothing is estimated: it may not be offered at all', () => {
    expect(catalog.price('trn1n.32xlarge', 'us-west-2', 'sagemaker')).toBeUndefined();
  });

  test('GIVEN us-east-1 THEN the listed prices stand; an estimate is only where no source lists one', () => {
    expect(catalog.price('inf2.xlarge', 'us-east-1', 'sagemaker')!.estimate).toBeUndefined();
  });

  test('GIVEN a price file with the real eu-west-1 price WHEN merged THEN it replaces the estimate', () => {
    const merged = catalog.withPriceFile(parsePriceFile({ source: 'catalog refresh', prices: [
      { instanceType: 'inf2.xlarge', region: 'eu-west-1', hosting: 'sagemaker', usdPerHour: 1.23 },
    ] }, 'prices.json'));
    expect(merged.price('inf2.xlarge', 'eu-west-1', 'sagemaker')).toMatchObject({ usdPerHour: 1.23, source: 'catalog refresh' });
    expect(merged.price('inf2.xlarge', 'eu-west-1', 'sagemaker')!.estimate).toBeUndefined();
  });

  test('GIVEN a price file adding EC2 prices of a new region THEN SageMaker there is estimated from them', () => {
    const merged = catalog.withPriceFile(parsePriceFile({ source: 'f', prices: [
      { instanceType: 'inf2.xlarge', region: 'il-central-1', hosting: 'ec2', usdPerHour: 1 },
    ] }, 'prices.json'));
    expect(merged.price('inf2.xlarge', 'il-central-1', 'sagemaker')!.estimate).toMatch(/^EC2 on-demand in il-central-1 \(1 USD\/h\)/);
  });

  test('GIVEN an estimate THEN availability stays unknown: a price estimated is no evidence that SageMaker offers the type there', () => {
    expect(sageMakerAvailability(catalog, 'inf2.xlarge', 'eu-west-1', []).availability).toBe('unknown');
  });
});
