// The network weights the repository ships, written by dev/predict/train.ts.
import weights from './network-weights.json' with { type: 'json' };
import { type NetworkModel, parseNetworkModel } from './network.js';

export const SHIPPED_NETWORK: NetworkModel = parseNetworkModel(weights);
