/**
 * Request and response types of the genjobs HTTP API, generated from the OpenAPI document
 * by `npm run client:types` (openapi-typescript). Do not edit by hand.
 */
export interface paths {
    "/v1/jobs/submit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Submit a generation job
         * @description Scope: submit_job
         */
        post: operations["submitJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/estimate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Estimate the cost of a job
         * @description Scope: check_status
         */
        post: operations["estimateJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the account's jobs, newest first
         * @description Scope: check_status
         */
        get: operations["listJobs"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{jobId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Get a job
         * @description Scope: check_status
         */
        get: operations["getJob"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{jobId}/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Follow a job's changes (Server-Sent Events)
         * @description Scope: check_status. `text/event-stream`: an `event: job` whose data is the job record (as GET /v1/jobs/{jobId}) on every change, with an `id:` (an opaque string, neither a number nor increasing) a client sends back as `Last-Event-ID` to resume without loss; a `: heartbeat` comment every 15 s; the stream ends after the terminal record (a finished job: one event). 204 when the Last-Event-ID already names the terminal record.
         */
        get: operations["streamJobEvents"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/jobs/{jobId}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a pending job (refunded)
         * @description Scope: submit_job
         */
        post: operations["cancelJob"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/catalog/models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List catalog models (personalized with a Bearer token) */
        get: operations["listCatalogModels"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/catalog/models/{slug}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a catalog model: provider/model (default capability) or provider/model/capability */
        get: operations["getCatalogModel"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/catalog/providers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List providers with at least one model */
        get: operations["listCatalogProviders"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/catalog/providers/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a provider and its models */
        get: operations["getCatalogProvider"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/catalog/capability-groups": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List capability groups */
        get: operations["listCapabilityGroups"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/catalog/categories": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List categories */
        get: operations["listCategories"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the models the key may use (cached 5 minutes)
         * @description Scope: list_models
         */
        get: operations["listModels"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/providers/{providerId}/models": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List a provider's models the key may use
         * @description Scope: list_models
         */
        get: operations["listProviderModels"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/account": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The key's account: its balance, credit held, spend and plan (not in the spec)
         * @description Any valid key of the account may read it. The figures are the ledger's as this api replica last saw them (milliseconds behind a write); credit leased for submits of the last few seconds counts as held until its unused part returns.
         */
        get: operations["getAccount"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/uploads/presign": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Presign an upload: PUT the file to uploadUrl within 15 minutes; it is deleted 60 minutes after creation
         * @description Scope: submit_job
         */
        post: operations["presignUpload"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/uploads/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get an upload of the account */
        get: operations["getUpload"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    jobFinished: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * A job completed or failed (sent to the webhookUrl of its submit)
         * @description Signed per Standard Webhooks. Any answer but a 2xx is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h with the same webhook-id (a Retry-After up to 10 h is honoured); 410 stops the retries. A cancelled job sends none.
         */
        post: operations["jobFinished"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        /**
         * @example {
         *       "jobId": "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f",
         *       "status": "completed",
         *       "progress": 100,
         *       "output": "https://genjobs.example.com/files/jobs/6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f/output-0.png",
         *       "outputs": [
         *         {
         *           "url": "https://genjobs.example.com/files/jobs/6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f/output-0.png",
         *           "type": "image"
         *         }
         *       ],
         *       "error": null,
         *       "createdAt": "2026-01-01T00:00:00Z",
         *       "completedAt": "2026-01-01T00:00:31.512Z",
         *       "model": "genjobs/reference-image/text-to-image",
         *       "costMicroCents": 134000
         *     }
         * @example {
         *       "jobId": "0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d",
         *       "status": "pending",
         *       "progress": 0,
         *       "output": null,
         *       "outputs": null,
         *       "error": null,
         *       "createdAt": "2026-01-01T00:01:00Z",
         *       "completedAt": null,
         *       "model": "genjobs/reference-video/text-to-video",
         *       "costMicroCents": 2400000,
         *       "queuePosition": 2,
         *       "estimatedCompletionTime": "2026-01-01T00:04:10.000Z"
         *     }
         */
        Job: {
            jobId: string;
            /** @enum {string} */
            status: "pending" | "processing" | "completed" | "failed" | "cancelled";
            progress: number;
            output: string | null;
            outputs: components["schemas"]["JobOutput"][] | null;
            error: components["schemas"]["JobError"] | null;
            /** Format: date-time */
            createdAt: string;
            completedAt: string | null;
            model: string;
            /**
             * Format: int64
             * @description What the job was priced at when submitted, in micro-cents (1,000,000 = $1); a failed or cancelled job was not charged it (refundedMicroCents)
             */
            costMicroCents: number;
            /**
             * Format: int64
             * @description Failed and cancelled jobs only: the credit given back, their whole cost. An addition clients may ignore
             */
            refundedMicroCents?: number;
            /**
             * Format: int64
             * @description Pending jobs only: jobs ahead of this one for the model variant (0: next). An addition clients may ignore
             */
            queuePosition?: number;
            /**
             * Format: date-time
             * @description Pending and processing jobs: when the job should complete, from observed run times; absent while its model variant is paused (no slots). An addition clients may ignore
             */
            estimatedCompletionTime?: string;
        };
        JobOutput: {
            url: string;
            /** @enum {string} */
            type: "video" | "image" | "audio" | "text";
            thumbnail?: string;
            posterImage?: string;
        };
        JobError: {
            /**
             * @description GENERATION_FAILED: the model failed; the others: see the README
             * @enum {string}
             */
            code: "GENERATION_FAILED" | "UPSTREAM_ERROR" | "TIMEOUT" | "OUTPUT_STORE_FAILED" | "INVALID_JOB" | "INVALID_OUTPUT" | "INTERNAL" | "MODEL_UNAVAILABLE" | "QUEUE_TIMEOUT" | "OUT_OF_MEMORY" | "UNSCHEDULABLE" | "POD_START_TIMEOUT" | "INFRASTRUCTURE_LOST";
            message: string;
            /** @description whether submitting the same job again may succeed */
            retryable: boolean;
        };
        /**
         * @example {
         *       "jobs": [
         *         {
         *           "jobId": "0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d",
         *           "status": "pending",
         *           "progress": 0,
         *           "output": null,
         *           "outputs": null,
         *           "error": null,
         *           "createdAt": "2026-01-01T00:01:00Z",
         *           "completedAt": null,
         *           "model": "genjobs/reference-video/text-to-video",
         *           "costMicroCents": 2400000,
         *           "queuePosition": 2,
         *           "estimatedCompletionTime": "2026-01-01T00:04:10.000Z"
         *         },
         *         {
         *           "jobId": "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f",
         *           "status": "completed",
         *           "progress": 100,
         *           "output": "https://genjobs.example.com/files/jobs/6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f/output-0.png",
         *           "outputs": [
         *             {
         *               "url": "https://genjobs.example.com/files/jobs/6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f/output-0.png",
         *               "type": "image"
         *             }
         *           ],
         *           "error": null,
         *           "createdAt": "2026-01-01T00:00:00Z",
         *           "completedAt": "2026-01-01T00:00:31.512Z",
         *           "model": "genjobs/reference-image/text-to-image",
         *           "costMicroCents": 134000
         *         }
         *       ],
         *       "nextCursor": "2026-01-01T00:00:00Z_6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f"
         *     }
         */
        JobList: {
            jobs: components["schemas"]["Job"][];
            nextCursor: string | null;
        };
        /**
         * @example {
         *       "jobId": "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f",
         *       "requestId": "0f9e8d7c-6b5a-4938-a7b6-c5d4e3f2a1b0",
         *       "status": "pending",
         *       "estimatedCompletionTime": "2026-01-01T00:04:00.000Z",
         *       "costMicroCents": 2400000
         *     }
         */
        SubmitResult: {
            jobId: string;
            requestId: string;
            /** @constant */
            status: "pending";
            /** Format: date-time */
            estimatedCompletionTime: string;
            /** Format: int64 */
            costMicroCents: number;
        };
        /**
         * @example {
         *       "baseCostMicroCents": 134000,
         *       "estimatedCostMicroCents": 134000,
         *       "breakdown": [
         *         {
         *           "component": "base",
         *           "costMicroCents": 134000
         *         },
         *         {
         *           "component": "resolution=1k",
         *           "costMicroCents": 0
         *         }
         *       ],
         *       "hasDiscount": false
         *     }
         * @example {
         *       "baseCostMicroCents": 241200,
         *       "estimatedCostMicroCents": 241200,
         *       "breakdown": [
         *         {
         *           "component": "base",
         *           "costMicroCents": 134000
         *         },
         *         {
         *           "component": "resolution=4k",
         *           "costMicroCents": 107200
         *         }
         *       ],
         *       "hasDiscount": false
         *     }
         * @example {
         *       "baseCostMicroCents": 2400000,
         *       "estimatedCostMicroCents": 2400000,
         *       "breakdown": [
         *         {
         *           "component": "base",
         *           "costMicroCents": 1600000
         *         },
         *         {
         *           "component": "resolution=720p",
         *           "costMicroCents": 0
         *         },
         *         {
         *           "component": "has_sound=true",
         *           "costMicroCents": 800000
         *         }
         *       ],
         *       "hasDiscount": false
         *     }
         */
        Estimate: {
            /** Format: int64 */
            baseCostMicroCents: number;
            /** Format: int64 */
            estimatedCostMicroCents: number;
            breakdown: {
                component: string;
                /** Format: int64 */
                costMicroCents: number;
            }[];
            hasDiscount: boolean;
            discounted?: {
                type: string;
                /** Format: double */
                percentage: number;
                /** Format: int64 */
                savedMicroCents: number;
            };
        };
        /**
         * @example {
         *       "jobId": "0a9b8c7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d",
         *       "status": "cancelled",
         *       "refundedMicroCents": 2400000
         *     }
         */
        CancelResult: {
            jobId: string;
            /** @constant */
            status: "cancelled";
            /** Format: int64 */
            refundedMicroCents: number;
        };
        /**
         * @example {
         *       "type": "job.completed",
         *       "timestamp": "2026-01-01T00:00:31.512Z",
         *       "data": {
         *         "jobId": "6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f",
         *         "status": "completed",
         *         "progress": 100,
         *         "output": "https://genjobs.example.com/files/jobs/6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f/output-0.png",
         *         "outputs": [
         *           {
         *             "url": "https://genjobs.example.com/files/jobs/6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f/output-0.png",
         *             "type": "image"
         *           }
         *         ],
         *         "error": null,
         *         "createdAt": "2026-01-01T00:00:00Z",
         *         "completedAt": "2026-01-01T00:00:31.512Z",
         *         "model": "genjobs/reference-image/text-to-image",
         *         "costMicroCents": 134000
         *       }
         *     }
         */
        WebhookEvent: {
            /** @enum {string} */
            type: "job.completed" | "job.failed";
            /**
             * Format: date-time
             * @description When the job finished (its completedAt)
             */
            timestamp: string;
            data: components["schemas"]["Job"];
        };
        /**
         * @example {
         *       "slug": "genjobs/reference-image/text-to-image",
         *       "provider": {
         *         "id": "genjobs",
         *         "name": "genjobs reference",
         *         "logoUrl": "https://genjobs.io/logos/genjobs.svg"
         *       },
         *       "category": "image",
         *       "capability": "text-to-image",
         *       "pricing": {
         *         "baseCredits": 134000,
         *         "defaultCostMicroCents": 134000,
         *         "unit": "per_generation"
         *       },
         *       "tags": [
         *         "reference",
         *         "fast",
         *         "image"
         *       ],
         *       "ratings": {
         *         "average": 0,
         *         "count": 0
         *       }
         *     }
         */
        CatalogModel: {
            slug: string;
            provider: {
                id: string;
                name: string;
                logoUrl: string;
            };
            category: string;
            capability: string;
            pricing: {
                /**
                 * Format: int64
                 * @description micro-cents per generation, or per second of the perSecond field when that is present
                 */
                baseCredits: number;
                /** @description what a job sending only the required fields costs (the input schema's defaults), after the caller's discount; null when the defaults alone do not price */
                defaultCostMicroCents: number | null;
                /**
                 * @description a job is charged once, for the whole generation
                 * @constant
                 */
                unit: "per_generation";
                /** @description for a model priced by the second: the input field whose seconds multiply baseCredits */
                perSecond?: {
                    field: string;
                };
            };
            tags: string[];
            ratings: {
                /** Format: double */
                average: number;
                /** Format: int64 */
                count: number;
            };
        };
        /**
         * @example {
         *       "slug": "genjobs/reference-image/text-to-image",
         *       "provider": {
         *         "id": "genjobs",
         *         "name": "genjobs reference",
         *         "logoUrl": "https://genjobs.io/logos/genjobs.svg"
         *       },
         *       "name": "Reference Image",
         *       "description": "Renders a deterministic test image from the prompt and seed, or edits the given images.",
         *       "category": "image",
         *       "capability": "text-to-image",
         *       "inputSchema": {
         *         "type": "object",
         *         "properties": {
         *           "prompt": {
         *             "type": "string",
         *             "maxLength": 4000,
         *             "pattern": "\\S",
         *             "description": "What to generate (not blank)."
         *           },
         *           "image_urls": {
         *             "type": "array",
         *             "maxItems": 4,
         *             "items": {
         *               "type": "string",
         *               "format": "uri",
         *               "pattern": "^(https?:|data:image/)"
         *             },
         *             "description": "Optional reference images (upload fileUrl values); one URL may be sent as `image` instead."
         *           },
         *           "aspect_ratio": {
         *             "type": "string",
         *             "enum": [
         *               "1:1",
         *               "16:9",
         *               "9:16",
         *               "4:3",
         *               "3:4"
         *             ],
         *             "default": "1:1"
         *           },
         *           "resolution": {
         *             "type": "string",
         *             "enum": [
         *               "1k",
         *               "2k",
         *               "4k"
         *             ],
         *             "default": "1k"
         *           },
         *           "seed": {
         *             "type": [
         *               "integer",
         *               "string"
         *             ],
         *             "minimum": 0,
         *             "maximum": 4294967295,
         *             "description": "Same seed and input, same output. Without one, each job gets its own (a resubmit gives a new output).",
         *             "pattern": "^[0-9]+$|^[0-9]+\\.0+$"
         *           },
         *           "image": {
         *             "type": "string",
         *             "format": "uri",
         *             "pattern": "^(https?:|data:image/)",
         *             "description": "One address sent instead of image_urls: the same as image_urls with this one item."
         *           }
         *         },
         *         "additionalProperties": false,
         *         "required": [
         *           "prompt"
         *         ],
         *         "allOf": [
         *           {
         *             "not": {
         *               "required": [
         *                 "image",
         *                 "image_urls"
         *               ]
         *             }
         *           }
         *         ]
         *       },
         *       "pricing": {
         *         "baseCredits": 134000,
         *         "defaultCostMicroCents": 134000,
         *         "unit": "per_generation"
         *       },
         *       "siblings": [
         *         {
         *           "slug": "genjobs/reference-image/edit-image",
         *           "capability": "edit-image"
         *         }
         *       ]
         *     }
         */
        CatalogModelDetail: {
            slug: string;
            provider: {
                id: string;
                name: string;
                logoUrl: string;
            };
            name: string;
            description: string;
            category: string;
            capability: string;
            /** @description JSON Schema of the job input */
            inputSchema: {
                [key: string]: unknown;
            };
            pricing: {
                /**
                 * Format: int64
                 * @description micro-cents per generation, or per second of the perSecond field when that is present
                 */
                baseCredits: number;
                /** @description what a job sending only the required fields costs (the input schema's defaults), after the caller's discount; null when the defaults alone do not price */
                defaultCostMicroCents: number | null;
                /**
                 * @description a job is charged once, for the whole generation
                 * @constant
                 */
                unit: "per_generation";
                /** @description for a model priced by the second: the input field whose seconds multiply baseCredits */
                perSecond?: {
                    field: string;
                };
            };
            siblings: {
                slug: string;
                capability: string;
            }[];
        };
        /**
         * @example {
         *       "id": "genjobs",
         *       "name": "genjobs reference",
         *       "description": "Reference generators built into the genjobs worker image. They produce real, decodable files quickly, for development, demos and end-to-end tests.",
         *       "logoUrl": "https://genjobs.io/logos/genjobs.svg",
         *       "website": "https://genjobs.io",
         *       "color": "#4F46E5",
         *       "modelCount": 3
         *     }
         */
        CatalogProvider: {
            id: string;
            name: string;
            description: string;
            logoUrl: string;
            website: string;
            color: string;
            /** Format: int64 */
            modelCount: number;
        };
        /**
         * @example {
         *       "id": "genjobs",
         *       "name": "genjobs reference",
         *       "description": "Reference generators built into the genjobs worker image. They produce real, decodable files quickly, for development, demos and end-to-end tests.",
         *       "logoUrl": "https://genjobs.io/logos/genjobs.svg",
         *       "website": "https://genjobs.io",
         *       "color": "#4F46E5",
         *       "models": [
         *         {
         *           "slug": "genjobs/reference-image/text-to-image",
         *           "name": "Reference Image",
         *           "description": "Renders a deterministic test image from the prompt and seed, or edits the given images.",
         *           "category": "image",
         *           "capability": "text-to-image",
         *           "pricing": {
         *             "baseCredits": 134000,
         *             "defaultCostMicroCents": 134000,
         *             "unit": "per_generation"
         *           },
         *           "tags": [
         *             "reference",
         *             "fast",
         *             "image"
         *           ]
         *         }
         *       ]
         *     }
         */
        CatalogProviderDetail: {
            id: string;
            name: string;
            description: string;
            logoUrl: string;
            website: string;
            color: string;
            models: {
                slug: string;
                name: string;
                description: string;
                category: string;
                capability: string;
                pricing: {
                    /**
                     * Format: int64
                     * @description micro-cents per generation, or per second of the perSecond field when that is present
                     */
                    baseCredits: number;
                    /** @description what a job sending only the required fields costs (the input schema's defaults), after the caller's discount; null when the defaults alone do not price */
                    defaultCostMicroCents: number | null;
                    /**
                     * @description a job is charged once, for the whole generation
                     * @constant
                     */
                    unit: "per_generation";
                    /** @description for a model priced by the second: the input field whose seconds multiply baseCredits */
                    perSecond?: {
                        field: string;
                    };
                };
                tags: string[];
            }[];
        };
        /**
         * @example {
         *       "id": "text-to-video",
         *       "displayName": "Text to Video",
         *       "label": "T2V",
         *       "icon": "film",
         *       "color": "#DB2777",
         *       "order": 1
         *     }
         */
        CapabilityGroup: {
            id: string;
            displayName: string;
            label: string;
            icon: string;
            color: string;
            /** Format: double */
            order: number;
        };
        /**
         * @example {
         *       "id": "video",
         *       "name": "Video",
         *       "description": "Models that generate video clips.",
         *       "modelCount": 1
         *     }
         */
        Category: {
            id: string;
            name: string;
            description: string;
            /** Format: int64 */
            modelCount: number;
        };
        /**
         * @example {
         *       "models": [
         *         {
         *           "id": "genjobs/reference-image/text-to-image",
         *           "providerId": "genjobs",
         *           "providerName": "genjobs reference",
         *           "name": "Reference Image",
         *           "description": "Renders a deterministic test image from the prompt and seed, or edits the given images.",
         *           "category": "image",
         *           "currentVersion": "v1.0",
         *           "versionCount": 1,
         *           "currentVersionPricing": {
         *             "baseCredits": 134000,
         *             "defaultCostMicroCents": 134000,
         *             "unit": "per_generation"
         *           }
         *         }
         *       ]
         *     }
         */
        ModelList: {
            models: {
                id: string;
                name: string;
                description: string;
                category: string;
                currentVersion: string;
                /** Format: int64 */
                versionCount: number;
                currentVersionPricing: {
                    /**
                     * Format: int64
                     * @description micro-cents per generation, or per second of the perSecond field when that is present
                     */
                    baseCredits: number;
                    /** @description what a job sending only the required fields costs (the input schema's defaults), after the caller's discount; null when the defaults alone do not price */
                    defaultCostMicroCents: number | null;
                    /**
                     * @description a job is charged once, for the whole generation
                     * @constant
                     */
                    unit: "per_generation";
                    /** @description for a model priced by the second: the input field whose seconds multiply baseCredits */
                    perSecond?: {
                        field: string;
                    };
                };
                providerId: string;
                providerName: string;
            }[];
        };
        /**
         * @example {
         *       "provider": {
         *         "id": "genjobs",
         *         "name": "genjobs reference",
         *         "description": "Reference generators built into the genjobs worker image. They produce real, decodable files quickly, for development, demos and end-to-end tests.",
         *         "logoUrl": "https://genjobs.io/logos/genjobs.svg",
         *         "website": "https://genjobs.io",
         *         "color": "#4F46E5",
         *         "categories": [
         *           "image",
         *           "video"
         *         ],
         *         "isActive": true
         *       },
         *       "models": [
         *         {
         *           "id": "genjobs/reference-image/text-to-image",
         *           "name": "Reference Image",
         *           "description": "Renders a deterministic test image from the prompt and seed, or edits the given images.",
         *           "category": "image",
         *           "currentVersion": "v1.0",
         *           "versionCount": 1,
         *           "currentVersionPricing": {
         *             "baseCredits": 134000,
         *             "defaultCostMicroCents": 134000,
         *             "unit": "per_generation"
         *           }
         *         }
         *       ]
         *     }
         */
        ProviderModelList: {
            provider: {
                id: string;
                name: string;
                description: string;
                logoUrl: string;
                website: string;
                color: string;
                categories: string[];
                isActive: boolean;
            };
            models: {
                id: string;
                name: string;
                description: string;
                category: string;
                currentVersion: string;
                /** Format: int64 */
                versionCount: number;
                currentVersionPricing: {
                    /**
                     * Format: int64
                     * @description micro-cents per generation, or per second of the perSecond field when that is present
                     */
                    baseCredits: number;
                    /** @description what a job sending only the required fields costs (the input schema's defaults), after the caller's discount; null when the defaults alone do not price */
                    defaultCostMicroCents: number | null;
                    /**
                     * @description a job is charged once, for the whole generation
                     * @constant
                     */
                    unit: "per_generation";
                    /** @description for a model priced by the second: the input field whose seconds multiply baseCredits */
                    perSecond?: {
                        field: string;
                    };
                };
            }[];
        };
        /**
         * @example {
         *       "account": "acme",
         *       "plan": "pro",
         *       "maxConcurrentJobs": 20,
         *       "balanceMicroCents": 97466000,
         *       "heldMicroCents": 2400000,
         *       "spentMicroCents": 134000
         *     }
         */
        Account: {
            /** @description The account the key belongs to */
            account: string;
            plan: string;
            /**
             * Format: int64
             * @description The plan's jobs pending or processing at once
             */
            maxConcurrentJobs: number;
            /**
             * Format: int64
             * @description Credit for new jobs, in micro-cents (1,000,000 = $1): granted, less what completed jobs cost and what is held
             */
            balanceMicroCents: number;
            /**
             * Format: int64
             * @description Credit set aside for unfinished jobs and for submits of the last seconds; a refund or the unused part returns to the balance
             */
            heldMicroCents: number;
            /**
             * Format: int64
             * @description Charged for completed jobs, in total
             */
            spentMicroCents: number;
        };
        /**
         * @example {
         *       "uploadUrl": "https://genjobs.example.com/files/uploads/5e0c3a9f1b2d4c6e8a7b9d1f/3c2b1a09-8f7e-4d6c-b5a4-938271605f4e?expires=1767226500&contentType=image%2Fpng&maxSize=10485760&signature=3q2-7wAbCdEfGhIjKlMnOpQrStUvWxYz0123456789AB",
         *       "fileUrl": "https://genjobs.example.com/files/uploads/5e0c3a9f1b2d4c6e8a7b9d1f/3c2b1a09-8f7e-4d6c-b5a4-938271605f4e",
         *       "fileId": "3c2b1a09-8f7e-4d6c-b5a4-938271605f4e",
         *       "expiresAt": "2026-01-01T01:00:00.000Z",
         *       "maxSize": 10485760
         *     }
         */
        Presign: {
            /** @description PUT the file here with the same Content-Type, within 15 minutes (its `expires`) */
            uploadUrl: string;
            fileUrl: string;
            /** Format: uuid */
            fileId: string;
            /**
             * Format: date-time
             * @description When the file is deleted (60 minutes after the presign); the uploadUrl expires sooner
             */
            expiresAt: string;
            /** Format: int64 */
            maxSize: number;
        };
        /**
         * @example {
         *       "success": true,
         *       "data": {
         *         "uploadUrl": "https://genjobs.example.com/files/uploads/5e0c3a9f1b2d4c6e8a7b9d1f/3c2b1a09-8f7e-4d6c-b5a4-938271605f4e?expires=1767226500&contentType=image%2Fpng&maxSize=10485760&signature=3q2-7wAbCdEfGhIjKlMnOpQrStUvWxYz0123456789AB",
         *         "fileUrl": "https://genjobs.example.com/files/uploads/5e0c3a9f1b2d4c6e8a7b9d1f/3c2b1a09-8f7e-4d6c-b5a4-938271605f4e",
         *         "fileId": "3c2b1a09-8f7e-4d6c-b5a4-938271605f4e",
         *         "expiresAt": "2026-01-01T01:00:00.000Z",
         *         "maxSize": 10485760
         *       },
         *       "requestId": "0f9e8d7c-6b5a-4938-a7b6-c5d4e3f2a1b0"
         *     }
         */
        PresignResponse: {
            /** @description always true */
            success: boolean;
            data: components["schemas"]["Presign"];
            requestId: string;
        };
        /**
         * @example {
         *       "id": "3c2b1a09-8f7e-4d6c-b5a4-938271605f4e",
         *       "filename": "photo.png",
         *       "contentType": "image/png",
         *       "fileUrl": "https://genjobs.example.com/files/uploads/5e0c3a9f1b2d4c6e8a7b9d1f/3c2b1a09-8f7e-4d6c-b5a4-938271605f4e",
         *       "status": "pending",
         *       "createdAt": "2026-01-01T00:00:00.000Z",
         *       "expiresAt": "2026-01-01T01:00:00.000Z",
         *       "uploaded": true,
         *       "sizeBytes": 482113
         *     }
         */
        Upload: {
            id: string;
            filename: string;
            /** @enum {string} */
            contentType: "image/jpeg" | "image/png" | "image/webp" | "image/gif" | "video/mp4" | "video/webm" | "audio/mpeg" | "audio/wav";
            fileUrl: string;
            /** @enum {string} */
            status: "pending" | "expired";
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            expiresAt: string;
            /** @description Not in the spec: whether the file has been PUT (a pending upload; fileUrl answers 404 until it has). Absent once expired, or when the store could not be asked. */
            uploaded?: boolean;
            /**
             * Format: int64
             * @description Not in the spec: the stored size, once uploaded.
             */
            sizeBytes?: number;
        };
        /**
         * @example {
         *       "success": true,
         *       "data": {
         *         "id": "3c2b1a09-8f7e-4d6c-b5a4-938271605f4e",
         *         "filename": "photo.png",
         *         "contentType": "image/png",
         *         "fileUrl": "https://genjobs.example.com/files/uploads/5e0c3a9f1b2d4c6e8a7b9d1f/3c2b1a09-8f7e-4d6c-b5a4-938271605f4e",
         *         "status": "pending",
         *         "createdAt": "2026-01-01T00:00:00.000Z",
         *         "expiresAt": "2026-01-01T01:00:00.000Z",
         *         "uploaded": true,
         *         "sizeBytes": 482113
         *       },
         *       "requestId": "0f9e8d7c-6b5a-4938-a7b6-c5d4e3f2a1b0"
         *     }
         */
        UploadResponse: {
            /** @description always true */
            success: boolean;
            data: components["schemas"]["Upload"];
            requestId: string;
        };
        /**
         * @example {
         *       "type": "https://genjobs.io/problems/invalid-input",
         *       "title": "Unprocessable Content",
         *       "status": 422,
         *       "detail": "input does not match the model's inputSchema: /input/duration must be one of 4, 6, 8",
         *       "code": "INVALID_INPUT",
         *       "requestId": "0f9e8d7c-6b5a-4938-a7b6-c5d4e3f2a1b0",
         *       "retryable": false,
         *       "errors": [
         *         {
         *           "pointer": "/input/duration",
         *           "message": "must be one of 4, 6, 8"
         *         }
         *       ]
         *     }
         */
        Problem: {
            type: string;
            title: string;
            /** Format: int64 */
            status: number;
            detail: string;
            code: string;
            requestId: string;
            retryable: boolean;
            /** @description present on the wrapped upload endpoints */
            success?: boolean;
            errors?: {
                pointer: string;
                message: string;
            }[];
        };
        /**
         * @example {
         *       "type": "https://genjobs.io/problems/malformed-request",
         *       "title": "Bad Request",
         *       "status": 400,
         *       "detail": "request body is not valid JSON",
         *       "code": "MALFORMED_REQUEST",
         *       "requestId": "0f9e8d7c-6b5a-4938-a7b6-c5d4e3f2a1b0",
         *       "retryable": false
         *     }
         */
        Problem400: {
            type: string;
            title: string;
            /** Format: int64 */
            status: number;
            detail: string;
            /** @enum {string} */
            code: "VALIDATION_ERROR" | "INVALID_CONTENT_TYPE" | "MALFORMED_REQUEST";
            requestId: string;
            retryable: boolean;
            /** @description present on the wrapped upload endpoints */
            success?: boolean;
            errors?: {
                pointer: string;
                message: string;
            }[];
        };
        /**
         * @example {
         *       "type": "https://genjobs.io/problems/unauthenticated",
         *       "title": "Unauthorized",
         *       "status": 401,
         *       "detail": "this endpoint needs an Authorization: Bearer <API key> header",
         *       "code": "UNAUTHENTICATED",
         *       "requestId": "0f9e8d7c-6b5a-4938-a7b6-c5d4e3f2a1b0",
         *       "retryable": false
         *     }
         */
        Problem401: {
            type: string;
            title: string;
            /** Format: int64 */
            status: number;
            detail: string;
            /** @enum {string} */
            code: "UNAUTHENTICATED" | "INVALID_API_KEY";
            requestId: string;
            retryable: boolean;
            /** @description present on the wrapped upload endpoints */
            success?: boolean;
            errors?: {
                pointer: string;
                message: string;
            }[];
        };
        /**
         * @example {
         *       "type": "https://genjobs.io/problems/insufficient-balance",
         *       "title": "Payment Required",
         *       "status": 402,
         *       "detail": "the job costs 2400000 micro-cents and the balance is 1200000",
         *       "code": "INSUFFICIENT_BALANCE",
         *       "requestId": "0f9e8d7c-6b5a-4938-a7b6-c5d4e3f2a1b0",
         *       "retryable": false
         *     }
         */
        Problem402: {
            type: string;
            title: string;
            /** Format: int64 */
            status: number;
            detail: string;
            /** @enum {string} */
            code: "INSUFFICIENT_BALANCE";
            requestId: string;
            retryable: boolean;
            /** @description present on the wrapped upload endpoints */
            success?: boolean;
            errors?: {
                pointer: string;
                message: string;
            }[];
        };
        /**
         * @example {
         *       "type": "https://genjobs.io/problems/insufficient-scope",
         *       "title": "Forbidden",
         *       "status": 403,
         *       "detail": "this API key lacks the submit_job scope",
         *       "code": "INSUFFICIENT_SCOPE",
         *       "requestId": "0f9e8d7c-6b5a-4938-a7b6-c5d4e3f2a1b0",
         *       "retryable": false
         *     }
         */
        Problem403: {
            type: string;
            title: string;
            /** Format: int64 */
            status: number;
            detail: string;
            /** @enum {string} */
            code: "MODEL_ACCESS_DENIED" | "UNAUTHORIZED_ACCESS" | "INSUFFICIENT_SCOPE" | "SIGNATURE_INVALID";
            requestId: string;
            retryable: boolean;
            /** @description present on the wrapped upload endpoints */
            success?: boolean;
            errors?: {
                pointer: string;
                message: string;
            }[];
        };
        /**
         * @example {
         *       "type": "https://genjobs.io/problems/job-not-found",
         *       "title": "Not Found",
         *       "status": 404,
         *       "detail": "job 6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f not found",
         *       "code": "JOB_NOT_FOUND",
         *       "requestId": "0f9e8d7c-6b5a-4938-a7b6-c5d4e3f2a1b0",
         *       "retryable": false
         *     }
         */
        Problem404: {
            type: string;
            title: string;
            /** Format: int64 */
            status: number;
            detail: string;
            /** @enum {string} */
            code: "MODEL_NOT_FOUND" | "JOB_NOT_FOUND" | "NOT_FOUND";
            requestId: string;
            retryable: boolean;
            /** @description present on the wrapped upload endpoints */
            success?: boolean;
            errors?: {
                pointer: string;
                message: string;
            }[];
        };
        /**
         * @example {
         *       "type": "https://genjobs.io/problems/method-not-allowed",
         *       "title": "Method Not Allowed",
         *       "status": 405,
         *       "detail": "DELETE is not allowed on /v1/jobs/submit; allowed: OPTIONS, POST",
         *       "code": "METHOD_NOT_ALLOWED",
         *       "requestId": "0f9e8d7c-6b5a-4938-a7b6-c5d4e3f2a1b0",
         *       "retryable": false
         *     }
         */
        Problem405: {
            type: string;
            title: string;
            /** Format: int64 */
            status: number;
            detail: string;
            /** @enum {string} */
            code: "METHOD_NOT_ALLOWED";
            requestId: string;
            retryable: boolean;
            /** @description present on the wrapped upload endpoints */
            success?: boolean;
            errors?: {
                pointer: string;
                message: string;
            }[];
        };
        /**
         * @example {
         *       "type": "https://genjobs.io/problems/request-timeout",
         *       "title": "Request Timeout",
         *       "status": 408,
         *       "detail": "the request body did not arrive within 30 s; send it again",
         *       "code": "REQUEST_TIMEOUT",
         *       "requestId": "0f9e8d7c-6b5a-4938-a7b6-c5d4e3f2a1b0",
         *       "retryable": true
         *     }
         */
        Problem408: {
            type: string;
            title: string;
            /** Format: int64 */
            status: number;
            detail: string;
            /** @enum {string} */
            code: "REQUEST_TIMEOUT";
            requestId: string;
            retryable: boolean;
            /** @description present on the wrapped upload endpoints */
            success?: boolean;
            errors?: {
                pointer: string;
                message: string;
            }[];
        };
        /**
         * @example {
         *       "type": "https://genjobs.io/problems/job-cannot-be-cancelled",
         *       "title": "Conflict",
         *       "status": 409,
         *       "detail": "job 6f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f is processing; only pending jobs can be cancelled",
         *       "code": "JOB_CANNOT_BE_CANCELLED",
         *       "requestId": "0f9e8d7c-6b5a-4938-a7b6-c5d4e3f2a1b0",
         *       "retryable": false
         *     }
         */
        Problem409: {
            type: string;
            title: string;
            /** Format: int64 */
            status: number;
            detail: string;
            /** @enum {string} */
            code: "JOB_CANNOT_BE_CANCELLED" | "IDEMPOTENCY_KEY_REUSED";
            requestId: string;
            retryable: boolean;
            /** @description present on the wrapped upload endpoints */
            success?: boolean;
            errors?: {
                pointer: string;
                message: string;
            }[];
        };
        /**
         * @example {
         *       "type": "https://genjobs.io/problems/payload-too-large",
         *       "title": "Content Too Large",
         *       "status": 413,
         *       "detail": "request body is too large",
         *       "code": "PAYLOAD_TOO_LARGE",
         *       "requestId": "0f9e8d7c-6b5a-4938-a7b6-c5d4e3f2a1b0",
         *       "retryable": false
         *     }
         */
        Problem413: {
            type: string;
            title: string;
            /** Format: int64 */
            status: number;
            detail: string;
            /** @enum {string} */
            code: "PAYLOAD_TOO_LARGE";
            requestId: string;
            retryable: boolean;
            /** @description present on the wrapped upload endpoints */
            success?: boolean;
            errors?: {
                pointer: string;
                message: string;
            }[];
        };
        /**
         * @example {
         *       "type": "https://genjobs.io/problems/unsupported-media-type",
         *       "title": "Unsupported Media Type",
         *       "status": 415,
         *       "detail": "request bodies must be JSON (Content-Type: application/json)",
         *       "code": "UNSUPPORTED_MEDIA_TYPE",
         *       "requestId": "0f9e8d7c-6b5a-4938-a7b6-c5d4e3f2a1b0",
         *       "retryable": false
         *     }
         */
        Problem415: {
            type: string;
            title: string;
            /** Format: int64 */
            status: number;
            detail: string;
            /** @enum {string} */
            code: "UNSUPPORTED_MEDIA_TYPE";
            requestId: string;
            retryable: boolean;
            /** @description present on the wrapped upload endpoints */
            success?: boolean;
            errors?: {
                pointer: string;
                message: string;
            }[];
        };
        /**
         * @example {
         *       "type": "https://genjobs.io/problems/invalid-input",
         *       "title": "Unprocessable Content",
         *       "status": 422,
         *       "detail": "input does not match the model's inputSchema: /input/duration must be one of 4, 6, 8",
         *       "code": "INVALID_INPUT",
         *       "requestId": "0f9e8d7c-6b5a-4938-a7b6-c5d4e3f2a1b0",
         *       "retryable": false,
         *       "errors": [
         *         {
         *           "pointer": "/input/duration",
         *           "message": "must be one of 4, 6, 8"
         *         }
         *       ]
         *     }
         */
        Problem422: {
            type: string;
            title: string;
            /** Format: int64 */
            status: number;
            detail: string;
            /** @enum {string} */
            code: "INVALID_INPUT";
            requestId: string;
            retryable: boolean;
            /** @description present on the wrapped upload endpoints */
            success?: boolean;
            errors?: {
                pointer: string;
                message: string;
            }[];
        };
        /**
         * @example {
         *       "type": "https://genjobs.io/problems/concurrent-jobs-exceeded",
         *       "title": "Too Many Requests",
         *       "status": 429,
         *       "detail": "the account has 20 unfinished jobs, the most it may have at once; try again in 5 s",
         *       "code": "CONCURRENT_JOBS_EXCEEDED",
         *       "requestId": "0f9e8d7c-6b5a-4938-a7b6-c5d4e3f2a1b0",
         *       "retryable": true
         *     }
         */
        Problem429: {
            type: string;
            title: string;
            /** Format: int64 */
            status: number;
            detail: string;
            /** @enum {string} */
            code: "CONCURRENT_JOBS_EXCEEDED" | "RATE_LIMITED";
            requestId: string;
            retryable: boolean;
            /** @description present on the wrapped upload endpoints */
            success?: boolean;
            errors?: {
                pointer: string;
                message: string;
            }[];
        };
        /**
         * @example {
         *       "type": "https://genjobs.io/problems/unavailable",
         *       "title": "Service Unavailable",
         *       "status": 503,
         *       "detail": "the job history is unavailable right now; please retry",
         *       "code": "UNAVAILABLE",
         *       "requestId": "0f9e8d7c-6b5a-4938-a7b6-c5d4e3f2a1b0",
         *       "retryable": true
         *     }
         */
        Problem503: {
            type: string;
            title: string;
            /** Format: int64 */
            status: number;
            detail: string;
            /** @enum {string} */
            code: "PUBSUB_PUBLISH_FAILED" | "UNAVAILABLE";
            requestId: string;
            retryable: boolean;
            /** @description present on the wrapped upload endpoints */
            success?: boolean;
            errors?: {
                pointer: string;
                message: string;
            }[];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    submitJob: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: within 24 hours the same key (per account) with the same body answers the same job, with Idempotent-Replayed: true; with another body, 409 IDEMPOTENCY_KEY_REUSED */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Capability variant slug <provider_id>/<model_name>/<capability>. A two-part model slug names no variant: MODEL_NOT_FOUND, whose message lists the variants. */
                    model: string;
                    version?: string | null;
                    /** @description Model-specific input; see the model's inputSchema */
                    input: {
                        [key: string]: unknown;
                    };
                    /** @description https:// address (no user:password@ in it) notified when the job completes or fails; null is the same as absent */
                    webhookUrl?: string | null;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    /** @description true when the answer is the job an earlier submit with this Idempotency-Key made */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubmitResult"];
                };
            };
            /** @description Problem */
            400: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem400"];
                };
            };
            /** @description Problem */
            401: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem401"];
                };
            };
            /** @description Problem */
            402: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    /** @description seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem402"];
                };
            };
            /** @description Problem */
            403: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem403"];
                };
            };
            /** @description Problem */
            404: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem404"];
                };
            };
            /** @description Problem */
            408: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    /** @description seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem408"];
                };
            };
            /** @description Problem */
            409: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem409"];
                };
            };
            /** @description Problem */
            413: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem413"];
                };
            };
            /** @description Problem */
            415: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem415"];
                };
            };
            /** @description Problem */
            422: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem422"];
                };
            };
            /** @description Problem */
            429: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    /** @description seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem429"];
                };
            };
            /** @description Problem */
            503: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    /** @description seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem503"];
                };
            };
            /** @description Problem: 405 METHOD_NOT_ALLOWED, 408 REQUEST_TIMEOUT, 431 HEADERS_TOO_LARGE, 500 INTERNAL */
            default: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    estimateJob: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Capability variant slug <provider_id>/<model_name>/<capability>. A two-part model slug names no variant: MODEL_NOT_FOUND, whose message lists the variants. */
                    model: string;
                    version?: string | null;
                    /** @description Model-specific input, possibly partial (no prompt yet): missing fields are priced at their defaults; null is the same as absent */
                    input?: {
                        [key: string]: unknown;
                    } | null;
                    /** @description Accepted and ignored, so a submit's body can be estimated as it is: it changes no price */
                    webhookUrl?: string | null;
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Estimate"];
                };
            };
            /** @description Problem */
            400: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem400"];
                };
            };
            /** @description Problem */
            401: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem401"];
                };
            };
            /** @description Problem */
            403: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem403"];
                };
            };
            /** @description Problem */
            404: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem404"];
                };
            };
            /** @description Problem */
            408: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    /** @description seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem408"];
                };
            };
            /** @description Problem */
            413: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem413"];
                };
            };
            /** @description Problem */
            415: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem415"];
                };
            };
            /** @description Problem */
            422: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem422"];
                };
            };
            /** @description Problem */
            429: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    /** @description seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem429"];
                };
            };
            /** @description Problem */
            503: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    /** @description seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem503"];
                };
            };
            /** @description Problem: 405 METHOD_NOT_ALLOWED, 408 REQUEST_TIMEOUT, 431 HEADERS_TOO_LARGE, 500 INTERNAL */
            default: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listJobs: {
        parameters: {
            query?: {
                status?: "pending" | "processing" | "completed" | "failed" | "cancelled";
                model?: string;
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["JobList"];
                };
            };
            /** @description Problem */
            400: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem400"];
                };
            };
            /** @description Problem */
            401: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem401"];
                };
            };
            /** @description Problem */
            403: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem403"];
                };
            };
            /** @description Problem */
            429: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    /** @description seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem429"];
                };
            };
            /** @description Problem */
            503: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    /** @description seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem503"];
                };
            };
            /** @description Problem: 405 METHOD_NOT_ALLOWED, 408 REQUEST_TIMEOUT, 431 HEADERS_TOO_LARGE, 500 INTERNAL */
            default: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                jobId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Job"];
                };
            };
            /** @description Problem */
            400: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem400"];
                };
            };
            /** @description Problem */
            401: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem401"];
                };
            };
            /** @description Problem */
            403: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem403"];
                };
            };
            /** @description Problem */
            404: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem404"];
                };
            };
            /** @description Problem */
            429: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    /** @description seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem429"];
                };
            };
            /** @description Problem */
            503: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    /** @description seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem503"];
                };
            };
            /** @description Problem: 405 METHOD_NOT_ALLOWED, 408 REQUEST_TIMEOUT, 431 HEADERS_TOO_LARGE, 500 INTERNAL */
            default: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    streamJobEvents: {
        parameters: {
            query?: never;
            header?: {
                /** @description The id of the last event received: the stream resumes after it (EventSource sends it on reconnect; a browser reaches this endpoint through its own backend, since EventSource cannot send a key) */
                "Last-Event-ID"?: string;
            };
            path: {
                jobId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "text/event-stream": string;
                };
            };
            /** @description The client already holds the terminal record: nothing more will come */
            204: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Problem */
            400: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem400"];
                };
            };
            /** @description Problem */
            401: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem401"];
                };
            };
            /** @description Problem */
            403: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem403"];
                };
            };
            /** @description Problem */
            404: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem404"];
                };
            };
            /** @description Problem */
            429: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    /** @description seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem429"];
                };
            };
            /** @description Problem */
            503: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    /** @description seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem503"];
                };
            };
            /** @description Problem: 405 METHOD_NOT_ALLOWED, 408 REQUEST_TIMEOUT, 431 HEADERS_TOO_LARGE, 500 INTERNAL */
            default: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    cancelJob: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                jobId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CancelResult"];
                };
            };
            /** @description Problem */
            400: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem400"];
                };
            };
            /** @description Problem */
            401: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem401"];
                };
            };
            /** @description Problem */
            403: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem403"];
                };
            };
            /** @description Problem */
            404: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem404"];
                };
            };
            /** @description Problem */
            409: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem409"];
                };
            };
            /** @description Problem */
            429: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    /** @description seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem429"];
                };
            };
            /** @description Problem */
            503: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    /** @description seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem503"];
                };
            };
            /** @description Problem: 405 METHOD_NOT_ALLOWED, 408 REQUEST_TIMEOUT, 431 HEADERS_TOO_LARGE, 500 INTERNAL */
            default: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listCatalogModels: {
        parameters: {
            query?: {
                category?: string;
                capability?: string;
                provider?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CatalogModel"][];
                };
            };
            /** @description Problem */
            400: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem400"];
                };
            };
            /** @description Problem */
            401: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem401"];
                };
            };
            /** @description Problem */
            429: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    /** @description seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem429"];
                };
            };
            /** @description Problem: 405 METHOD_NOT_ALLOWED, 408 REQUEST_TIMEOUT, 431 HEADERS_TOO_LARGE, 500 INTERNAL */
            default: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getCatalogModel: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                slug: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CatalogModelDetail"];
                };
            };
            /** @description Problem */
            400: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem400"];
                };
            };
            /** @description Problem */
            404: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem404"];
                };
            };
            /** @description Problem */
            429: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    /** @description seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem429"];
                };
            };
            /** @description Problem: 405 METHOD_NOT_ALLOWED, 408 REQUEST_TIMEOUT, 431 HEADERS_TOO_LARGE, 500 INTERNAL */
            default: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listCatalogProviders: {
        parameters: {
            query?: {
                category?: string;
                capability?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CatalogProvider"][];
                };
            };
            /** @description Problem */
            400: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem400"];
                };
            };
            /** @description Problem: 405 METHOD_NOT_ALLOWED, 408 REQUEST_TIMEOUT, 431 HEADERS_TOO_LARGE, 500 INTERNAL */
            default: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getCatalogProvider: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CatalogProviderDetail"];
                };
            };
            /** @description Problem */
            400: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem400"];
                };
            };
            /** @description Problem */
            404: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem404"];
                };
            };
            /** @description Problem: 405 METHOD_NOT_ALLOWED, 408 REQUEST_TIMEOUT, 431 HEADERS_TOO_LARGE, 500 INTERNAL */
            default: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listCapabilityGroups: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CapabilityGroup"][];
                };
            };
            /** @description Problem: 405 METHOD_NOT_ALLOWED, 408 REQUEST_TIMEOUT, 431 HEADERS_TOO_LARGE, 500 INTERNAL */
            default: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listCategories: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Category"][];
                };
            };
            /** @description Problem: 405 METHOD_NOT_ALLOWED, 408 REQUEST_TIMEOUT, 431 HEADERS_TOO_LARGE, 500 INTERNAL */
            default: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listModels: {
        parameters: {
            query?: {
                category?: string;
                capability?: string;
                provider?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ModelList"];
                };
            };
            /** @description Problem */
            400: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem400"];
                };
            };
            /** @description Problem */
            401: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem401"];
                };
            };
            /** @description Problem */
            403: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem403"];
                };
            };
            /** @description Problem */
            429: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    /** @description seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem429"];
                };
            };
            /** @description Problem: 405 METHOD_NOT_ALLOWED, 408 REQUEST_TIMEOUT, 431 HEADERS_TOO_LARGE, 500 INTERNAL */
            default: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    listProviderModels: {
        parameters: {
            query?: {
                category?: string;
                capability?: string;
            };
            header?: never;
            path: {
                providerId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProviderModelList"];
                };
            };
            /** @description Problem */
            400: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem400"];
                };
            };
            /** @description Problem */
            401: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem401"];
                };
            };
            /** @description Problem */
            403: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem403"];
                };
            };
            /** @description Problem */
            404: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem404"];
                };
            };
            /** @description Problem */
            429: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    /** @description seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem429"];
                };
            };
            /** @description Problem: 405 METHOD_NOT_ALLOWED, 408 REQUEST_TIMEOUT, 431 HEADERS_TOO_LARGE, 500 INTERNAL */
            default: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getAccount: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Account"];
                };
            };
            /** @description Problem */
            401: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem401"];
                };
            };
            /** @description Problem */
            429: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    /** @description seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem429"];
                };
            };
            /** @description Problem */
            503: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    /** @description seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem503"];
                };
            };
            /** @description Problem: 405 METHOD_NOT_ALLOWED, 408 REQUEST_TIMEOUT, 431 HEADERS_TOO_LARGE, 500 INTERNAL */
            default: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    presignUpload: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Name of the file (metadata only) */
                    filename: string;
                    /**
                     * @description One of image/jpeg, image/png, image/webp, image/gif, video/mp4, video/webm, audio/mpeg, audio/wav (case-insensitive)
                     * @enum {string}
                     */
                    contentType: "image/jpeg" | "image/png" | "image/webp" | "image/gif" | "video/mp4" | "video/webm" | "audio/mpeg" | "audio/wav";
                };
            };
        };
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PresignResponse"];
                };
            };
            /** @description Problem */
            400: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem400"];
                };
            };
            /** @description Problem */
            401: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem401"];
                };
            };
            /** @description Problem */
            403: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem403"];
                };
            };
            /** @description Problem */
            408: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    /** @description seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem408"];
                };
            };
            /** @description Problem */
            413: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem413"];
                };
            };
            /** @description Problem */
            415: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem415"];
                };
            };
            /** @description Problem */
            429: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    /** @description seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem429"];
                };
            };
            /** @description Problem */
            503: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    /** @description seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem503"];
                };
            };
            /** @description Problem: 405 METHOD_NOT_ALLOWED, 408 REQUEST_TIMEOUT, 431 HEADERS_TOO_LARGE, 500 INTERNAL */
            default: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    getUpload: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description OK */
            200: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UploadResponse"];
                };
            };
            /** @description Problem */
            400: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem400"];
                };
            };
            /** @description Problem */
            401: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem401"];
                };
            };
            /** @description Problem */
            404: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem404"];
                };
            };
            /** @description Problem */
            429: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    /** @description seconds to wait */
                    "Retry-After"?: number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem429"];
                };
            };
            /** @description Problem: 405 METHOD_NOT_ALLOWED, 408 REQUEST_TIMEOUT, 431 HEADERS_TOO_LARGE, 500 INTERNAL */
            default: {
                headers: {
                    /** @description The request's id (the caller's own x-request-id when it is 8–128 of A-Z a-z 0-9 . _ : -), in every log line of the request */
                    "x-request-id"?: string;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    jobFinished: {
        parameters: {
            query?: never;
            header: {
                /** @description The same on every attempt of one notification: de-duplicate by it */
                "webhook-id": string;
                /** @description Seconds since the epoch of this attempt; refuse one far from your clock (replays) */
                "webhook-timestamp": string;
                /** @description Space-separated `v1,<base64 HMAC-SHA256>` signatures (two during a secret rotation) of `<webhook-id>.<webhook-timestamp>.<raw body>`, keyed with the bytes of the account's secret: the base64 after its `whsec_` prefix, decoded */
                "webhook-signature": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WebhookEvent"];
            };
        };
        responses: {
            /** @description Gone: no more attempts for this notification */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Received: no more attempts */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
