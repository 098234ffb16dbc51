// Owns the HTTP API: exactly the routes of shared/http/routes.ts, a $default route for everything else, and one
// $default stage with throttling (a limit of its own on each route) and JSON access logs.
import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  CfnStage,
  HttpApi,
  HttpMethod,
  HttpRoute,
  type HttpStage,
  LogGroupLogDestination,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ROUTES, type RouteFunction, routeKeyOf } from '../../shared/http/routes';

export interface ServiceApiProps {
  /** The API's name: `inbox-placement`, prefixed by the stage when there is one. */
  apiName: string;
  /** The Lambda behind each route's `function`. */
  routes: Record<RouteFunction, IFunction>;
  /** Answers every other method and path with a JSON 404 or 405. */
  fallback: IFunction;
  throttle: Throttle;
  /** Each route's own limit, by the function serving it: every route of that function gets one of this size. */
  routeThrottles: Record<RouteFunction, Throttle>;
  logRetention: RetentionDays;
}

export interface Throttle {
  rateLimit: number;
  burstLimit: number;
}

/** One JSON object per request; the field names are what CloudWatch Logs Insights queries use. */
const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  ip: '$context.identity.sourceIp',
  requestTime: '$context.requestTime',
  httpMethod: '$context.httpMethod',
  routeKey: '$context.routeKey',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  integrationLatency: '$context.integrationLatency',
  // Why API Gateway answered an error itself (throttled, bad request), and what failed calling the Lambda.
  errorMessage: '$context.error.message',
  integrationErrorMessage: '$context.integrationErrorMessage',
};

const AUTH_IN_HANDLER =
  'The API authenticates in the handler (Authorization: Bearer <key>, checked against SHA-256 hashes in the ' +
  'table, each key bound to one account scope) because the spec fixes that scheme and its JSON 401 body; an API ' +
  'Gateway authorizer would answer with its own body and add a second Lambda call per request.';

export class ServiceApi extends Construct {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  readonly accessLogs: LogGroup;

  constructor(scope: Construct, id: string, props: ServiceApiProps) {
    super(scope, id);
    this.api = new HttpApi(this, 'Api', {
      apiName: props.apiName,
      description: 'Inbox placement checks',
      // Created below instead, because the default stage takes neither throttling nor access logging.
      createDefaultStage: false,
      defaultIntegration: new HttpLambdaIntegration('Fallback', props.fallback),
    });

    // One integration per function: the get function serves the check and its placement report.
    const integrations = new Map<RouteFunction, HttpLambdaIntegration>();
    const integrationOf = (name: RouteFunction): HttpLambdaIntegration => {
      let integration = integrations.get(name);
      if (!integration) {
        integration = new HttpLambdaIntegration(`${name}Integration`, props.routes[name]);
        integrations.set(name, integration);
      }
      return integration;
    };
    const routeConstructs: HttpRoute[] = [];
    for (const route of ROUTES) {
      const [routeConstruct] = this.api.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: integrationOf(route.function),
      });
      if (routeConstruct) {
        Validations.of(routeConstruct).acknowledge({ id: 'AwsSolutions-APIG4', reason: AUTH_IN_HANDLER });
        routeConstructs.push(routeConstruct);
      }
    }
    const defaultRoute = this.api.node.tryFindChild('DefaultRoute');
    if (!(defaultRoute instanceof HttpRoute)) {
      throw new Error('HttpApi no longer creates its $default route as "DefaultRoute"');
    }
    Validations.of(defaultRoute).acknowledge({
      id: 'AwsSolutions-APIG4',
      reason:
        'The $default route only answers unknown paths and wrong methods with a JSON 404 or 405; no data behind it.',
    });

    this.accessLogs = new LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.stage = this.api.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle,
      accessLogSettings: {
        destination: new LogGroupLogDestination(this.accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });
    // HttpStage takes one throttle for every route; per route is only in the CloudFormation resource. A route
    // setting names its route by key, which must exist before the stage refers to it.
    const cfnStage = this.stage.node.defaultChild;
    if (!(cfnStage instanceof CfnStage)) throw new Error('HttpStage no longer wraps a CfnStage');
    cfnStage.routeSettings = Object.fromEntries(
      ROUTES.map((route) => {
        const throttle = props.routeThrottles[route.function];
        return [
          routeKeyOf(route),
          { ThrottlingRateLimit: throttle.rateLimit, ThrottlingBurstLimit: throttle.burstLimit },
        ];
      }),
    );
    for (const route of routeConstructs) this.stage.node.addDependency(route);
  }
}
