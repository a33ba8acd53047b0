// Deliberate violation: the boundary check must reject a web framework in the domain.
import express from 'express';
export const app = express;
