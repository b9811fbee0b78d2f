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
        CancelResult: {
            jobId: string;
            /** @constant */
            status: "cancelled";
            /** Format: int64 */
            refundedMicroCents: number;
        };
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
        CapabilityGroup: {
            id: string;
            displayName: string;
            label: string;
            icon: string;
            color: string;
            /** Format: double */
            order: number;
        };
        Category: {
            id: string;
            name: string;
            description: string;
            /** Format: int64 */
            modelCount: number;
        };
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
        PresignResponse: {
            /** @description always true */
            success: boolean;
            data: components["schemas"]["Presign"];
            requestId: string;
        };
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
        UploadResponse: {
            /** @description always true */
            success: boolean;
            data: components["schemas"]["Upload"];
            requestId: string;
        };
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
