// `npm run generate:client`: writes the declarations of @parley/client (packages/client/openapi.d.ts),
// which the dashboard is typed with too, from the OpenAPI document of the code in this tree (no
// running server needed).
import { writeFileSync } from 'node:fs';
import { clientTypes, CLIENT_TYPES_PATH } from '../src/dashboard/client/generate.ts';

writeFileSync(CLIENT_TYPES_PATH, await clientTypes());
console.log(`wrote ${CLIENT_TYPES_PATH}`);
