import { SANDBOX_SCENARIOS } from '@prior-auth/payer-portal';
import type { Request, Response } from 'express';
import { injectable } from 'inversify';
import { HttpError } from '../http/http-error';
import { scopeOf } from '../http/request-context';

/** Decision 0026: how to steer the simulated payer. Only sandbox keys see it; production has no simulator. */
@injectable()
export class SandboxController {
  async listScenarios(req: Request, res: Response): Promise<void> {
    if (scopeOf(req).environment !== 'sandbox') {
      throw new HttpError(404, 'not_found', 'Sandbox scenarios exist only in the sandbox environment.');
    }
    res.json({
      data: SANDBOX_SCENARIOS.map(({ scenario, memberId, description }) => ({
        scenario,
        memberId,
        description,
      })),
      pagination: { nextCursor: null },
    });
  }
}
