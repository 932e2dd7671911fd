//! The rule table: forge's own rules, by family, informed by gitleaks' default
//! configuration (`config/gitleaks.toml`: its families, keywords, entropy floors and
//! allow-lists) and by the shapes vendors document. Order matters: private keys
//! first, vendor token shapes next (bare prefixes, then shapes found by the name
//! near them), then commands and headers, then the generic assignment and prose
//! rules.
//!
//! Regexes are byte regexes built without Unicode (see `mod.rs`): `\w`, `\s`, `\b`
//! are ASCII, and case folding is written `(?i-u:…)` so a rule reads the same were
//! it ever built with Unicode on.

use super::Rule;
use super::checks::{
    always, assignment, base64_private_key, flag_value, high_entropy, not_hash, not_placeholder,
    prose, random, very_high_entropy, xml_secret,
};

/// A value found by a vendor's name before it, the way gitleaks' contextual rules
/// find them: the name (and up to 30 more name characters: `ALGOLIA_ADMIN_KEY`),
/// an assignment (`=`, `:`, `:=`, `=>`, `,`, …), optional quotes, then the value as
/// group `s`, ended by a quote, a blank, `;`, `,` or the end.
macro_rules! near {
    ($names:literal, $value:literal) => {
        concat!(
            r#"(?P<k>(?i-u:"#,
            $names,
            r#")[\w.-]{0,30})[\s'"]{0,3}(?:=|>|:{1,3}=|\|\||:|=>|\?=|,)[\s'"`=]{0,5}(?P<s>"#,
            $value,
            r#")(?:[\s'"`;,)}\]]|\\[nr]|\z)"#
        )
    };
}

/// A rule whose shape is a vendor token with a fixed prefix.
macro_rules! token {
    ($id:literal, $kind:literal, [$($k:literal),+], $re:expr) => {
        Rule { id: $id, kind: $kind, keywords: &[$($k),+], regex: $re, check: always, token: true }
    };
    ($id:literal, $kind:literal, [$($k:literal),+], $re:expr, $check:expr) => {
        Rule { id: $id, kind: $kind, keywords: &[$($k),+], regex: $re, check: $check, token: true }
    };
}

/// A rule whose value is found by a name near it (not precise enough for doctor).
macro_rules! named {
    ($id:literal, $kind:literal, [$($k:literal),+], $re:expr) => {
        Rule { id: $id, kind: $kind, keywords: &[$($k),+], regex: $re, check: high_entropy, token: false }
    };
    ($id:literal, $kind:literal, [$($k:literal),+], $re:expr, $check:expr) => {
        Rule { id: $id, kind: $kind, keywords: &[$($k),+], regex: $re, check: $check, token: false }
    };
}

/// The table. See the module documentation for the order.
pub const RULES: &[Rule] = &[
    // ── Private keys: whole blocks, blocks cut before their end or after their
    // header, and the body of a key whose header line was lost.
    named!(
        "private-key",
        "private key block",
        ["private key"],
        r"(?s)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----.*?(?:-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|\z)",
        always
    ),
    named!(
        "private-key-tail",
        "private key block",
        ["private key"],
        // The base64 lines (wrapped, or joined with `\n` escapes in JSON) before an
        // END line whose BEGIN line was cut off.
        r"(?:[A-Za-z0-9+/=]{16,}(?:\r?\n|\\n)[ \t]*)+(?:=[A-Za-z0-9+/]{4}(?:\r?\n|\\n)[ \t]*)?-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----",
        always
    ),
    named!(
        "private-key-body",
        "private key block",
        [
            "b3blbnnzac1rzxktdje",
            "ibaak",
            "ibadan",
            "mhccaqeei",
            "migkagebbd",
            "mc4caqawbqydk2v"
        ],
        // The first body line of a key says what it is, header or not: OpenSSH's
        // `openssh-key-v1`, PKCS#1 RSA (`MII…IBAAK`), PKCS#8 (`MII…IBADAN`), SEC1 EC
        // (`MHcCAQEEI`, `MIGkAgEBBD`), PKCS#8 Ed25519 (`MC4CAQAwBQYDK2Vw`); the
        // base64 lines that follow go with it.
        r"(?:b3BlbnNzaC1rZXktdjE|MII[A-Za-z0-9+/]{2,3}IBAAK|MII[A-Za-z0-9+/]{2,3}IBADAN|MHcCAQEEI|MIGkAgEBBD|MC4CAQAwBQYDK2Vw)[A-Za-z0-9+/=]*(?:(?:\r?\n|\\n)[ \t]*[A-Za-z0-9+/=]{16,})*",
        always
    ),
    named!(
        "private-key-base64",
        "private key block",
        ["ls0tls1crudjti"],
        // A PEM block base64-encoded once more, as a Kubernetes Secret holds it
        // (`kubectl get secret -o yaml` prints `tls.key: LS0tLS1CRUdJTi…`): it starts
        // with `-----BEGIN` encoded, and the check decodes its first line to see a
        // private key's header (a certificate's `tls.crt` is no secret). No key name
        // is needed around it; the wrapped lines that follow go with it.
        r"\bLS0tLS1CRUdJTi[A-Za-z0-9+/]*={0,2}(?:(?:\r?\n|\\n)[ \t]*[A-Za-z0-9+/=]{16,})*",
        base64_private_key
    ),
    named!(
        "putty-private-key",
        "private key block",
        ["private-lines"],
        r"Private-Lines:[ \t]*[0-9]+\r?\n(?P<s>(?:[A-Za-z0-9+/=]+(?:\r?\n|\z))+)",
        always
    ),
    named!(
        "kubeconfig-client-key-data",
        "Kubernetes client key",
        ["client-key-data"],
        r#"(?i-u:client-key-data)["']?[ \t]*:[ \t]*["']?(?P<s>[A-Za-z0-9+/=]{16,})"#,
        always
    ),
    named!(
        "kubernetes-secret-data",
        "Kubernetes Secret data",
        ["secret"],
        // The `data:`/`stringData:` block of a `kind: Secret` manifest (values and
        // names go: the names say what the values are).
        r#"(?s)\bkind:[ \t]*["']?Secret["']?[ \t]*\r?\n.{0,400}?\b(?:data|stringData):[ \t]*\r?\n(?P<s>(?:[ \t]+[\w.-]+:[^\n]*(?:\n|\z))+)"#,
        always
    ),
    // ── AI providers.
    token!(
        "anthropic-api-key",
        "Anthropic API key",
        ["sk-ant-"],
        r"\bsk-ant-(?:api|admin|oat|ort|sid)[0-9]{2}-[A-Za-z0-9_-]{20,}"
    ),
    token!(
        "openai-api-key",
        "API key (sk-…)",
        ["sk-"],
        r"\bsk-[A-Za-z0-9_-]{16,}"
    ),
    token!(
        "huggingface-access-token",
        "Hugging Face token",
        ["hf_"],
        r"\bhf_[A-Za-z0-9]{30,}"
    ),
    token!(
        "huggingface-organization-api-token",
        "Hugging Face token",
        ["api_org_"],
        r"\bapi_org_[A-Za-z0-9]{30,}"
    ),
    token!(
        "groq-api-key",
        "Groq API key",
        ["gsk_"],
        r"\bgsk_[A-Za-z0-9]{40,}"
    ),
    token!(
        "replicate-api-token",
        "Replicate API token",
        ["r8_"],
        r"\br8_[A-Za-z0-9]{30,}"
    ),
    token!(
        "perplexity-api-key",
        "Perplexity API key",
        ["pplx-"],
        r"\bpplx-[A-Za-z0-9]{40,}"
    ),
    token!(
        "xai-api-key",
        "xAI API key",
        ["xai-"],
        r"\bxai-[A-Za-z0-9]{60,}"
    ),
    token!(
        "langsmith-api-key",
        "LangSmith API key",
        ["lsv2_"],
        r"\blsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}\b"
    ),
    token!(
        "elevenlabs-api-key",
        "ElevenLabs API key",
        ["sk_"],
        r"\bsk_[a-f0-9]{48}\b"
    ),
    token!(
        "pinecone-api-key",
        "Pinecone API key",
        ["pcsk_"],
        r"\bpcsk_[A-Za-z0-9_]{40,}"
    ),
    named!(
        "cohere-api-token",
        "Cohere API key",
        ["cohere", "co_api_key"],
        near!("cohere|co_api_key", "[A-Za-z0-9]{40}")
    ),
    named!(
        "mistral-api-key",
        "Mistral API key",
        ["mistral"],
        near!("mistral", "[A-Za-z0-9]{32}")
    ),
    // ── Source hosting.
    token!(
        "github-token",
        "GitHub token",
        ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"],
        r"\bgh[pousr]_[A-Za-z0-9]{20,}"
    ),
    token!(
        "github-fine-grained-pat",
        "GitHub token",
        ["github_pat_"],
        r"\bgithub_pat_[A-Za-z0-9_]{20,}"
    ),
    token!(
        "gitlab-pat",
        "GitLab token",
        ["glpat-"],
        r"\bglpat-[A-Za-z0-9_.-]{20,}"
    ),
    token!(
        "gitlab-token",
        "GitLab token",
        [
            "glptt-",
            "glrt-",
            "gldt-",
            "glcbt-",
            "glft-",
            "glimt-",
            "glagent-",
            "gloas-",
            "glsoat-",
            "glffct-",
            "gr1348941"
        ],
        r"\b(?:gl(?:ptt|rt|dt|cbt|ft|imt|agent|oas|soat|ffct)-[A-Za-z0-9_.-]{20,}|GR1348941[A-Za-z0-9_-]{20,})"
    ),
    token!(
        "gitlab-session-cookie",
        "GitLab session cookie",
        ["_gitlab_session="],
        r"_gitlab_session=(?P<s>[0-9a-z]{32})"
    ),
    token!(
        "bitbucket-app-password",
        "Bitbucket app password",
        ["atbb"],
        r"\bATBB[A-Za-z0-9_=.-]{28,}"
    ),
    token!(
        "atlassian-api-token",
        "Atlassian API token",
        ["atatt3", "atctt3"],
        r"\bAT[AC]TT3[A-Za-z0-9_=-]{100,}"
    ),
    named!(
        "atlassian-api-token-named",
        "Atlassian API token",
        ["atlassian", "confluence", "jira"],
        near!("atlassian|confluence|jira", "[A-Za-z0-9]{24}")
    ),
    // ── Clouds and infrastructure.
    token!(
        "aws-access-token",
        "AWS access key",
        ["akia", "asia", "abia", "acca", "a3t"],
        r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}\b"
    ),
    named!(
        "aws-secret-access-key",
        "AWS secret key",
        ["aws"],
        r"\b(?i-u:aws).{0,40}?(?P<s>\b[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|\z)",
        not_hash
    ),
    token!(
        "aws-bedrock-api-key",
        "Amazon Bedrock API key",
        ["absk", "bedrock-api-key-"],
        r"\b(?:ABSK[A-Za-z0-9+/]{109,269}={0,2}|bedrock-api-key-YmVkcm9jay5hbWF6b25hd3MuY29t[A-Za-z0-9+/=%&._-]*)"
    ),
    token!(
        "gcp-api-key",
        "Google API key",
        ["aiza"],
        r"\bAIza[0-9A-Za-z_-]{35}"
    ),
    token!(
        "google-oauth-client-secret",
        "Google OAuth secret",
        ["gocspx-"],
        r"\bGOCSPX-[A-Za-z0-9_-]{20,}"
    ),
    token!(
        "google-oauth-access-token",
        "Google OAuth token",
        ["ya29."],
        r"\bya29\.[A-Za-z0-9_-]{30,}"
    ),
    token!(
        "google-oauth-refresh-token",
        "Google OAuth token",
        ["1//0"],
        r"\b1//0[A-Za-z0-9_-]{40,}"
    ),
    token!(
        "firebase-fcm-server-key",
        "Firebase Cloud Messaging key",
        ["apa91b"],
        r"\bAAAA[A-Za-z0-9_-]{7,}:APA91b[A-Za-z0-9_-]{100,}"
    ),
    token!(
        "azure-storage-account-key",
        "Azure storage key",
        ["accountkey"],
        r"\b(?i-u:AccountKey)\s*=\s*(?P<s>[A-Za-z0-9+/]{20,}={0,2})"
    ),
    token!(
        "azure-shared-access-key",
        "Azure shared access key",
        ["sharedaccesskey"],
        r"\b(?i-u:SharedAccessKey)\s*=\s*(?P<s>[A-Za-z0-9+/]{20,}={0,2})"
    ),
    token!(
        "azure-sas-signature",
        "Azure SAS signature",
        ["sig="],
        r"[?&;]sig=(?P<s>[A-Za-z0-9%+/=]{16,})"
    ),
    token!(
        "azure-ad-client-secret",
        "Azure client secret",
        ["q~"],
        r#"(?:^|[\s'"`=:(,>])(?P<s>[A-Za-z0-9_~.]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34})"#
    ),
    token!(
        "azure-devops-pat",
        "Azure DevOps token",
        ["azdo"],
        // The 84-character format: 76 characters, the `AZDO` signature, 4 more.
        r"\b[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}\b"
    ),
    named!(
        "azure-devops-pat-named",
        "Azure DevOps token",
        [
            "devops",
            "vsts",
            "azdo",
            "ado_pat",
            "ado-pat",
            "ado_token",
            "ado-token",
            "accesstoken"
        ],
        // The older 52-character base32 format, found by its name.
        near!(
            r"azure[\w.-]{0,12}devops|devops[_-]?(?:pat|token|ext)|vsts|azdo|ado[_-]?(?:pat|token)|system[._]accesstoken",
            "[a-z2-7]{52}"
        )
    ),
    named!(
        "azure-devops-pat-prose",
        "Azure DevOps token",
        ["devops", "vsts", "azdo"],
        // The 52-character base32 format said in prose or a command line with the
        // service named before it on the same line (`az devops login with PAT …`):
        // 52 lowercase letters and digits 2–7 is no word, hash or id.
        r"(?i-u:azure[ \t._-]*devops|\bdevops\b|\bvsts\b|\bazdo\b)[^\n]{0,80}?\b(?P<s>[a-z2-7]{52})\b",
        always
    ),
    token!(
        "digitalocean-token",
        "DigitalOcean token",
        ["dop_v1_", "doo_v1_", "dor_v1_"],
        r"\bdo[opr]_v1_[a-f0-9]{64}\b"
    ),
    token!(
        "alibaba-access-key-id",
        "Alibaba access key",
        ["ltai"],
        r"\bLTAI[A-Za-z0-9]{20}\b"
    ),
    named!(
        "alibaba-secret-key",
        "Alibaba secret key",
        ["alibaba", "aliyun"],
        near!("alibaba|aliyun", "[A-Za-z0-9]{30}")
    ),
    token!(
        "databricks-api-token",
        "Databricks token",
        ["dapi"],
        r"\bdapi[a-f0-9]{32}(?:-[0-9])?\b"
    ),
    token!(
        "heroku-api-key",
        "Heroku API key",
        ["hrku-"],
        r"\bHRKU-[A-Za-z0-9_-]{20,}"
    ),
    named!(
        "heroku-api-key-named",
        "Heroku API key",
        ["heroku"],
        near!(
            "heroku",
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
        )
    ),
    token!(
        "vault-token",
        "Vault token",
        ["hvs.", "hvb."],
        r"\bhv[sb]\.[A-Za-z0-9_-]{24,}"
    ),
    named!(
        "vault-token-legacy",
        "Vault token",
        ["vault"],
        near!("vault", r"s\.[A-Za-z0-9]{24}")
    ),
    token!(
        "terraform-cloud-token",
        "Terraform Cloud token",
        ["atlasv1"],
        r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,}"
    ),
    token!(
        "doppler-api-token",
        "Doppler token",
        [
            "dp.pt.",
            "dp.st.",
            "dp.ct.",
            "dp.sa.",
            "dp.scim.",
            "dp.audit."
        ],
        r"\bdp\.(?:pt|st|ct|sa|scim|audit)\.[A-Za-z0-9_.-]{40,}"
    ),
    token!(
        "flyio-access-token",
        "Fly.io token",
        ["fo1_", "fm1a_", "fm1r_", "fm2_"],
        r"\b(?:fo1_[A-Za-z0-9_-]{43}|fm1[ar]_[A-Za-z0-9+/]{100,}={0,3}|fm2_[A-Za-z0-9+/]{100,}={0,3})"
    ),
    token!(
        "cloudflare-origin-ca-key",
        "Cloudflare Origin CA key",
        ["v1.0-"],
        r"\bv1\.0-[a-f0-9]{24}-[a-f0-9]{146}"
    ),
    named!(
        "cloudflare-api-key",
        "Cloudflare API key",
        ["cloudflare", "cf_api", "cf-api"],
        near!("cloudflare|cf[_-]api", "[A-Za-z0-9_-]{40}|[a-f0-9]{37}")
    ),
    token!(
        "netlify-access-token",
        "Netlify token",
        ["nfp_"],
        r"\bnfp_[A-Za-z0-9]{36,}"
    ),
    named!(
        "netlify-access-token-named",
        "Netlify token",
        ["netlify"],
        near!("netlify", "[A-Za-z0-9_-]{40,46}")
    ),
    named!(
        "vercel-access-token",
        "Vercel token",
        ["vercel"],
        near!("vercel", "[A-Za-z0-9]{24}")
    ),
    token!(
        "render-api-key",
        "Render API key",
        ["rnd_"],
        r"\brnd_[A-Za-z0-9]{32}\b"
    ),
    token!(
        "openshift-user-token",
        "OpenShift token",
        ["sha256~"],
        r"\bsha256~[A-Za-z0-9_-]{43}"
    ),
    token!(
        "tailscale-key",
        "Tailscale key",
        ["tskey-"],
        r"\btskey-(?:auth|api|client|scim|webhook)-[A-Za-z0-9]{6,}-[A-Za-z0-9]{16,}"
    ),
    token!(
        "supabase-token",
        "Supabase key",
        ["sbp_", "sb_secret_"],
        r"\b(?:sbp_[a-f0-9]{40}\b|sb_secret_[A-Za-z0-9_-]{20,})"
    ),
    token!(
        "planetscale-token",
        "PlanetScale token",
        ["pscale_"],
        r"\bpscale_(?:tkn|oauth|pw)_[A-Za-z0-9_=.-]{32,64}"
    ),
    token!(
        "neon-api-key",
        "Neon API key",
        ["napi_"],
        r"\bnapi_[a-z0-9]{64}\b"
    ),
    token!(
        "pulumi-api-token",
        "Pulumi token",
        ["pul-"],
        r"\bpul-[a-f0-9]{40}\b"
    ),
    token!(
        "infracost-api-token",
        "Infracost token",
        ["ico-"],
        r"\bico-[A-Za-z0-9]{32}\b"
    ),
    token!(
        "prefect-api-token",
        "Prefect token",
        ["pnu_"],
        r"\bpnu_[A-Za-z0-9]{36}\b"
    ),
    token!(
        "clickhouse-cloud-api-secret-key",
        "ClickHouse Cloud key",
        ["4b1d"],
        r"\b4b1d[A-Za-z0-9]{38}\b"
    ),
    token!(
        "scalingo-api-token",
        "Scalingo token",
        ["tk-us-"],
        r"\btk-us-[A-Za-z0-9_-]{48}"
    ),
    token!(
        "harness-api-key",
        "Harness API key",
        ["pat.", "sat."],
        r"\b(?:pat|sat)\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{20}"
    ),
    token!(
        "octopus-deploy-api-key",
        "Octopus Deploy key",
        ["api-"],
        r"\bAPI-[A-Z0-9]{26}\b",
        very_high_entropy
    ),
    token!(
        "authress-service-client-access-key",
        "Authress key",
        [".acc_", ".acc-"],
        r"\b(?:sc|ext|scauth|authress)_[A-Za-z0-9]{5,30}\.[A-Za-z0-9]{4,6}\.acc[_-][A-Za-z0-9-]{10,32}\.[A-Za-z0-9+/_=-]{30,120}"
    ),
    token!(
        "settlemint-token",
        "SettleMint token",
        ["sm_aat_", "sm_pat_", "sm_sat_"],
        r"\bsm_(?:aat|pat|sat)_[A-Za-z0-9]{16}\b"
    ),
    token!(
        "defined-networking-api-token",
        "Defined Networking token",
        ["dnkey-"],
        r"\bdnkey-[A-Za-z0-9=_-]{26}-[A-Za-z0-9=_-]{52}"
    ),
    token!(
        "dockerhub-pat",
        "Docker Hub token",
        ["dckr_pat_", "dckr_oat_"],
        r"\bdckr_(?:pat|oat)_[A-Za-z0-9_-]{20,}"
    ),
    // ── Payments and finance.
    token!(
        "stripe-access-token",
        "Stripe key",
        ["_live_", "_test_", "_prod_"],
        r"\b[sr]k_(?:live|test|prod)_[A-Za-z0-9]{10,}"
    ),
    token!(
        "stripe-webhook-secret",
        "Stripe webhook secret",
        ["whsec_"],
        r"\bwhsec_[A-Za-z0-9]{20,}"
    ),
    token!(
        "square-access-token",
        "Square token",
        ["eaaa", "sq0atp-", "sq0csp-"],
        r"\b(?:EAAA[A-Za-z0-9_-]{22,60}|sq0atp-[A-Za-z0-9_-]{22}|sq0csp-[A-Za-z0-9_-]{43})",
        very_high_entropy
    ),
    token!(
        "shopify-token",
        "Shopify token",
        ["shpat_", "shpca_", "shppa_", "shpss_"],
        r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b"
    ),
    token!(
        "flutterwave-key",
        "Flutterwave key",
        ["flwseck", "flwpubk"],
        r"\bFLW(?:SECK|PUBK)(?:_TEST)?-[A-Za-z0-9]{12,32}(?:-X)?"
    ),
    token!(
        "duffel-api-token",
        "Duffel token",
        ["duffel_"],
        r"\bduffel_(?:test|live)_[A-Za-z0-9_=-]{43}"
    ),
    token!(
        "shippo-api-token",
        "Shippo token",
        ["shippo_"],
        r"\bshippo_(?:live|test)_[a-fA-F0-9]{40}\b"
    ),
    token!(
        "easypost-api-token",
        "EasyPost key",
        ["ezak", "eztk"],
        r"\bEZ[AT]K[A-Za-z0-9]{54}\b"
    ),
    token!(
        "braintree-access-token",
        "Braintree token",
        ["access_token$"],
        r"\baccess_token\$(?:production|sandbox)\$[a-z0-9]{16}\$[a-f0-9]{32}"
    ),
    token!(
        "razorpay-key",
        "Razorpay key",
        ["rzp_live_", "rzp_test_"],
        r"\brzp_(?:live|test)_[A-Za-z0-9]{14}\b"
    ),
    named!(
        "gocardless-api-token",
        "GoCardless token",
        ["gocardless"],
        near!("gocardless", "live_[A-Za-z0-9_=-]{40}")
    ),
    named!(
        "plaid-api-token",
        "Plaid key",
        ["plaid"],
        near!(
            "plaid",
            r"access-(?:sandbox|development|production)-[0-9a-f-]{36}|[a-z0-9]{30}|[a-z0-9]{24}"
        )
    ),
    named!(
        "coinbase-access-token",
        "Coinbase token",
        ["coinbase"],
        near!("coinbase", "[A-Za-z0-9_-]{64}")
    ),
    named!(
        "crypto-exchange-key",
        "exchange API key",
        ["kraken", "kucoin", "bittrex", "binance"],
        near!(
            "kraken|kucoin|bittrex|binance",
            r"[A-Za-z0-9/=_+-]{80,90}|[A-Za-z0-9]{64}|[a-f0-9]{32}|[a-f0-9]{24}"
        )
    ),
    named!(
        "finance-api-key",
        "finance API key",
        ["finicity", "finnhub", "lob"],
        near!(
            r"finicity|finnhub|\blob[_-]?(?:api|key|secret|live|test)",
            r"(?:live|test)_(?:pub_)?[a-f0-9]{31,35}|[a-f0-9]{32}|[a-z0-9]{20}"
        )
    ),
    // ── Messaging, mail, social.
    token!(
        "slack-token",
        "Slack token",
        ["xox"],
        r"\bxox[abposre]-[A-Za-z0-9-]{10,}"
    ),
    token!(
        "slack-app-token",
        "Slack token",
        ["xapp-"],
        r"\bxapp-[0-9]-[A-Za-z0-9-]{10,}"
    ),
    token!(
        "slack-webhook-url",
        "Slack webhook",
        ["hooks.slack.com"],
        r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<s>[A-Za-z0-9+/_-]{10,})"
    ),
    token!(
        "discord-webhook-url",
        "Discord webhook",
        ["discord"],
        r"discord(?:app)?\.com/api/webhooks/[0-9]+/(?P<s>[A-Za-z0-9_-]{20,})"
    ),
    named!(
        "discord-bot-token",
        "Discord bot token",
        ["discord"],
        r"(?i-u:discord)(?s:.){0,80}?\b(?P<s>[MNO][A-Za-z0-9_-]{23,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,38})",
        always
    ),
    named!(
        "discord-client-secret",
        "Discord secret",
        ["discord"],
        near!("discord", "[a-f0-9]{64}|[A-Za-z0-9_-]{32}")
    ),
    token!(
        "telegram-bot-api-token",
        "Telegram bot token",
        [":aa"],
        // `bot<token>` in the API's URLs: no word boundary before the digits.
        r"(?:^|[^0-9])(?P<s>[0-9]{8,10}:AA[A-Za-z0-9_-]{30,})"
    ),
    token!(
        "twilio-api-key",
        "Twilio API key",
        ["sk"],
        r"\bSK[0-9a-fA-F]{32}\b"
    ),
    named!(
        "twilio-auth-token",
        "Twilio auth token",
        ["twilio"],
        r"\b(?i-u:twilio).{0,40}?\b(?P<s>[0-9a-fA-F]{32})\b",
        always
    ),
    token!(
        "sendgrid-api-token",
        "SendGrid API key",
        ["sg."],
        r"\bSG\.[A-Za-z0-9_-]{16,32}\.[A-Za-z0-9_-]{16,64}"
    ),
    token!(
        "sendinblue-api-token",
        "Brevo (Sendinblue) key",
        ["xkeysib-", "xsmtpsib-"],
        r"\bx(?:keysib|smtpsib)-[a-f0-9]{64}-[A-Za-z0-9]{16}\b"
    ),
    token!(
        "mailgun-private-api-token",
        "Mailgun key",
        ["key-", "pubkey-"],
        r"\b(?:pub)?key-[a-f0-9]{32}\b"
    ),
    named!(
        "mailgun-signing-key",
        "Mailgun key",
        ["mailgun"],
        near!("mailgun", "[a-h0-9]{32}-[a-h0-9]{8}-[a-h0-9]{8}")
    ),
    token!(
        "mailchimp-api-key",
        "Mailchimp key",
        ["-us"],
        r"\b[a-f0-9]{32}-us[0-9]{1,2}\b"
    ),
    named!(
        "postmark-token",
        "Postmark token",
        ["postmark"],
        near!(
            "postmark",
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
        )
    ),
    token!(
        "microsoft-teams-webhook",
        "Microsoft Teams webhook",
        ["webhook.office.com"],
        r"\.webhook\.office\.com/webhookb2/(?P<s>[A-Za-z0-9@/-]{60,})"
    ),
    named!(
        "messaging-api-token",
        "messaging API token",
        [
            "mattermost",
            "messagebird",
            "message_bird",
            "message-bird",
            "intercom",
            "zendesk",
            "sendbird",
            "gitter",
            "beamer"
        ],
        near!(
            r"mattermost|message[_-]?bird|intercom|zendesk|sendbird|gitter|beamer",
            r"b_[A-Za-z0-9=_-]{44}|[A-Za-z0-9=_-]{60}|[A-Za-z0-9_-]{40}|[a-f0-9]{40}|[A-Za-z0-9]{25,26}"
        )
    ),
    token!(
        "facebook-page-access-token",
        "Facebook token",
        ["eaam", "eaac"],
        r"\bEAA[MC][A-Za-z0-9]{100,}"
    ),
    named!(
        "facebook-secret",
        "Facebook secret",
        ["facebook", "fb_app", "fb-app"],
        near!(r"facebook|fb[_-]app", "[a-f0-9]{32}")
    ),
    named!(
        "social-api-token",
        "social API token",
        [
            "twitter",
            "twitch",
            "linkedin",
            "linked_in",
            "linked-in",
            "yandex",
            "flickr",
            "nytimes",
            "typeform"
        ],
        near!(
            r"twitter|twitch|linked[_-]?in|yandex|flickr|nytimes|typeform",
            r"A{22}[A-Za-z0-9%]{80,100}|[0-9]{15,25}-[A-Za-z0-9]{20,40}|t1\.[A-Za-z0-9_-]+={0,2}\.[A-Za-z0-9_-]{86}={0,2}|AQVN[A-Za-z0-9_-]{35,38}|YC[A-Za-z0-9_-]{38}|[A-Za-z0-9]{50}|[A-Za-z0-9]{45}|[A-Za-z0-9]{30,32}|[A-Za-z0-9]{25}|[A-Za-z0-9]{16}"
        )
    ),
    token!(
        "typeform-api-token",
        "Typeform token",
        ["tfp_"],
        r"\btfp_[A-Za-z0-9_.=-]{59}"
    ),
    token!(
        "frameio-api-token",
        "Frame.io token",
        ["fio-u-"],
        r"\bfio-u-[A-Za-z0-9_=-]{64}"
    ),
    token!(
        "dropbox-api-token",
        "Dropbox token",
        ["sl."],
        r"\bsl\.[A-Za-z0-9_=-]{130,}",
        very_high_entropy
    ),
    named!(
        "dropbox-api-token-named",
        "Dropbox token",
        ["dropbox"],
        near!(
            "dropbox",
            r"[A-Za-z0-9]{11}AAAAAAAAAA[A-Za-z0-9_=-]{43}|[A-Za-z0-9]{15}"
        )
    ),
    named!(
        "asana-token",
        "Asana token",
        ["asana"],
        near!(
            "asana",
            r"[0-9]/[0-9]{10,20}(?:/[0-9]{10,20})?:[A-Za-z0-9]{32}|[A-Za-z0-9]{32}"
        )
    ),
    // ── Package registries and developer tools.
    token!(
        "npm-access-token",
        "npm token",
        ["npm_"],
        r"\bnpm_[A-Za-z0-9]{36}\b"
    ),
    token!(
        "pypi-upload-token",
        "PyPI token",
        ["pypi-"],
        r"\bpypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}"
    ),
    token!(
        "rubygems-api-token",
        "RubyGems token",
        ["rubygems_"],
        r"\brubygems_[a-f0-9]{48}\b"
    ),
    token!(
        "clojars-api-token",
        "Clojars token",
        ["clojars_"],
        r"\bCLOJARS_[A-Za-z0-9]{60}\b"
    ),
    token!(
        "nuget-api-key",
        "NuGet API key",
        ["oy2"],
        r"\boy2[a-z0-9]{43}\b"
    ),
    token!(
        "artifactory-api-key",
        "Artifactory key",
        ["akcp", "cmvmd"],
        r"\b(?:AKCp[A-Za-z0-9]{69}|cmVmd[A-Za-z0-9]{59})\b"
    ),
    named!(
        "jfrog-api-key",
        "JFrog key",
        ["jfrog", "artifactory", "bintray", "xray"],
        near!(
            "jfrog|artifactory|bintray|xray",
            "[A-Za-z0-9]{73}|[A-Za-z0-9]{64}"
        )
    ),
    token!(
        "sonar-api-token",
        "SonarQube token",
        ["squ_", "sqp_", "sqa_"],
        r"\bsq[upa]_[A-Za-z0-9]{40}\b"
    ),
    named!(
        "snyk-api-token",
        "Snyk token",
        ["snyk"],
        near!(
            "snyk",
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
        )
    ),
    named!(
        "codecov-access-token",
        "Codecov token",
        ["codecov"],
        near!(
            "codecov",
            "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
        )
    ),
    token!(
        "readme-api-token",
        "ReadMe key",
        ["rdme_"],
        r"\brdme_[a-z0-9]{70}\b"
    ),
    token!(
        "postman-api-token",
        "Postman API key",
        ["pmak-"],
        r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b"
    ),
    token!(
        "linear-api-key",
        "Linear API key",
        ["lin_api_", "lin_oauth_"],
        r"\blin_(?:api_[A-Za-z0-9]{40}|oauth_[A-Za-z0-9]{64})\b"
    ),
    token!(
        "sourcegraph-access-token",
        "Sourcegraph token",
        ["sgp_"],
        r"\bsgp_(?:(?:[a-fA-F0-9]{16}|local)_)?[a-fA-F0-9]{40}\b"
    ),
    token!(
        "sentry-token",
        "Sentry token",
        ["sntrys_", "sntryu_"],
        r"\bsntry[su]_[A-Za-z0-9+/=_]{40,}"
    ),
    named!(
        "sentry-access-token",
        "Sentry token",
        ["sentry"],
        near!("sentry", "[a-f0-9]{64}")
    ),
    token!(
        "grafana-token",
        "Grafana token",
        ["glsa_", "glc_", "eyjrijoi"],
        r"\b(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}={0,2}|eyJrIjoi[A-Za-z0-9]{70,400}={0,3})"
    ),
    token!(
        "new-relic-key",
        "New Relic key",
        ["nrak-", "nrii-", "nrjs-", "nraa-", "nral"],
        r"\b(?:NR(?:AK|II|JS|AA)-[A-Za-z0-9]{19,32}|[a-fA-F0-9]{36}NRAL)\b"
    ),
    token!(
        "dynatrace-api-token",
        "Dynatrace token",
        ["dt0"],
        r"\bdt0[a-z][0-9]{2}\.[A-Za-z0-9]{24}\.[A-Za-z0-9]{64}\b"
    ),
    named!(
        "datadog-access-token",
        "Datadog key",
        ["datadog", "dd_api", "dd_app", "dd-api", "dd-app"],
        near!(r"datadog|dd[_-](?:api|app)", "[a-f0-9]{40}|[a-f0-9]{32}")
    ),
    named!(
        "sumologic-access-token",
        "Sumo Logic key",
        ["sumo"],
        near!("sumo", "su[A-Za-z0-9]{12}|[A-Za-z0-9]{64}")
    ),
    named!(
        "launchdarkly-access-token",
        "LaunchDarkly key",
        ["launchdarkly", "launch_darkly"],
        near!(
            r"launch[_-]?darkly",
            r"(?:api|sdk|mob)-[0-9a-f-]{36}|[A-Za-z0-9=_-]{40}"
        )
    ),
    token!(
        "adafruit-io-key",
        "Adafruit IO key",
        ["aio_"],
        r"\baio_[A-Za-z0-9]{28}\b"
    ),
    token!(
        "contentful-personal-access-token",
        "Contentful token",
        ["cfpat-"],
        r"\bCFPAT-[A-Za-z0-9_-]{40,50}(?:[^A-Za-z0-9_-]|\z)"
    ),
    token!(
        "circleci-personal-api-token",
        "CircleCI token",
        ["ccipat_"],
        r"\bCCIPAT_[A-Za-z0-9]{20,30}_[a-f0-9]{40}\b"
    ),
    token!(
        "posthog-personal-api-key",
        "PostHog personal API key",
        ["phx_"],
        r"\bphx_[A-Za-z0-9]{40,60}\b"
    ),
    token!(
        "hubspot-private-app-token",
        "HubSpot token",
        ["pat-na1-", "pat-eu1-"],
        r"\bpat-(?:na|eu)1-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"
    ),
    token!(
        "yandex-api-key",
        "Yandex Cloud API key",
        ["aqvn"],
        r"\bAQVN[A-Za-z0-9_-]{35,38}\b",
        random
    ),
    named!(
        "algolia-api-key-prose",
        "Algolia API key",
        ["algolia"],
        // Algolia's admin and search keys are 32 hex digits; said with the service
        // named before them on the same line (`algolia admin key …`), without the
        // assignment the generic rule needs.
        r"(?i-u:algolia)[^\n]{0,60}?\b(?P<s>[a-fA-F0-9]{32})\b",
        always
    ),
    named!(
        "saas-api-key",
        "SaaS API key",
        [
            "adafruit",
            "bitbucket",
            "meraki",
            "confluent",
            "contentful",
            "droneci",
            "etsy",
            "fastly",
            "freshbooks",
            "hubspot",
            "looker",
            "privateai",
            "private_ai",
            "private-ai",
            "rapidapi",
            "squarespace",
            "travis"
        ],
        // The rest of gitleaks' families found by the vendor's name before the value.
        near!(
            r"adafruit|bitbucket|meraki|confluent|contentful|droneci|etsy|fastly|freshbooks|hubspot|looker|private[_-]?ai|rapidapi|squarespace|travis",
            r"pat-(?:na|eu)1-[0-9a-fA-F-]{36}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[A-Za-z0-9_=-]{16,80}"
        )
    ),
    token!(
        "figma-token",
        "Figma token",
        ["figd_"],
        r"\bfigd_[A-Za-z0-9_-]{40,}"
    ),
    token!(
        "notion-api-token",
        "Notion token",
        ["ntn_", "secret_"],
        r"\b(?:ntn_[0-9]{11}[A-Za-z0-9]{35}|secret_[A-Za-z0-9]{43})\b"
    ),
    token!(
        "airtable-personal-access-token",
        "Airtable token",
        ["pat"],
        r"\bpat[A-Za-z0-9]{14}\.[a-f0-9]{64}\b"
    ),
    named!(
        "airtable-api-key",
        "Airtable key",
        ["airtable"],
        near!("airtable", "key[A-Za-z0-9]{14}|[A-Za-z0-9]{17}")
    ),
    token!(
        "mapbox-api-token",
        "Mapbox token",
        ["k.eyj"],
        r"\b[pst]k\.eyJ[A-Za-z0-9_-]{20,}\.[A-Za-z0-9_-]{20,}"
    ),
    token!(
        "1password-service-account-token",
        "1Password token",
        ["ops_eyj"],
        r"\bops_eyJ[A-Za-z0-9+/]{100,}={0,3}"
    ),
    token!(
        "1password-secret-key",
        "1Password secret key",
        ["a3-"],
        r"\bA3-[A-Z0-9]{6}-(?:[A-Z0-9]{11}|[A-Z0-9]{6}-[A-Z0-9]{5})-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}\b"
    ),
    token!(
        "age-secret-key",
        "age secret key",
        ["age-secret-key-1"],
        r"\bAGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}\b"
    ),
    token!(
        "maxmind-license-key",
        "MaxMind licence key",
        ["_mmk"],
        r"\b[A-Za-z0-9]{6}_[A-Za-z0-9]{29}_mmk\b"
    ),
    token!(
        "okta-api-token",
        "Okta API token",
        ["ssws"],
        r"\bSSWS[ \t]+(?P<s>[A-Za-z0-9_-]{20,})"
    ),
    named!(
        "okta-access-token",
        "Okta API token",
        ["okta"],
        near!("okta", "00[A-Za-z0-9_=-]{40}"),
        very_high_entropy
    ),
    token!(
        "adobe-client-secret",
        "Adobe secret",
        ["p8e-"],
        r"\bp8e-[A-Za-z0-9]{32}\b"
    ),
    named!(
        "adobe-client-id",
        "Adobe secret",
        ["adobe"],
        near!("adobe", "[a-f0-9]{32}")
    ),
    token!(
        "intra42-client-secret",
        "42 Intra secret",
        ["s-s4t2"],
        r"\bs-s4t2(?:ud|af)-[a-f0-9]{64}\b"
    ),
    named!(
        "sidekiq-secret",
        "Sidekiq licence",
        ["contribsys"],
        near!(
            r"bundle_(?:enterprise|gems)__contribsys__com",
            "[a-f0-9]{8}:[a-f0-9]{8}"
        ),
        not_placeholder
    ),
    token!(
        "jwt",
        "JSON Web Token",
        ["eyj"],
        r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}"
    ),
    token!(
        "jwt-base64",
        "JSON Web Token",
        ["zxlk"],
        r"\bZXlK[A-Za-z0-9+/]{60,}={0,2}"
    ),
    // ── Credentials on command lines, in URLs, config files and headers.
    named!(
        "url-password",
        "password in a URL",
        ["://"],
        // With a user or without (`redis://:pw@host`); the password runs to the last
        // `@` before the host (an unencoded `@` in it is kept with it).
        r#"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@"'<>`]*:(?P<s>[^\s/"'<>`]+)@"#,
        not_placeholder
    ),
    named!(
        "curl-auth-user",
        "curl password",
        ["curl"],
        r#"\bcurl\b[^\n]*?\s(?:-u|--user)(?:=|[ \t]+)["']?[^\s:"']*:(?P<s>[^\s"']+)"#,
        not_placeholder
    ),
    named!(
        "mysql-password-flag",
        "database password",
        ["mysql", "mariadb"],
        r#"\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n]*?\s-p(?P<s>'[^'\n]*'|"[^"\n]*"|[^\s'"]+)"#,
        not_placeholder
    ),
    named!(
        "sshpass-password",
        "ssh password",
        ["sshpass"],
        r"\bsshpass\s+-p\s*(?P<s>\S+)",
        not_placeholder
    ),
    named!(
        "docker-login-password",
        "registry password",
        [
            "docker login",
            "podman login",
            "nerdctl login",
            "buildah login",
            "skopeo login",
            "registry login",
            "oras login",
            "auth login"
        ],
        r#"\b(?:docker|podman|nerdctl|buildah|skopeo|helm registry|oras|crane auth) login\b[^\n]*?\s(?:-p|--password)(?:=|[ \t]+)(?P<s>'[^'\n]*'|"[^"\n]*"|[^\s'"]+)"#,
        not_placeholder
    ),
    named!(
        "password-flag",
        "password on a command line",
        [
            "--pass",
            "--pwd",
            "--token",
            "--secret",
            "--api-key",
            "--apikey",
            "--auth-token",
            "--access-token",
            "--client-secret"
        ],
        r#"\s--(?i-u:password|passwd|pass|pwd|token|api-key|apikey|auth-token|access-token|client-secret|secret-key)(?:=|[ \t]+)(?P<s>'[^'\n]*'|"[^"\n]*"|[^\s'",;]+)"#,
        flag_value
    ),
    named!(
        "netrc-password",
        "netrc password",
        ["machine"],
        r"\bmachine\s+\S+\s+login\s+\S+\s+password\s+(?P<s>\S+)",
        not_placeholder
    ),
    named!(
        "nuget-config-password",
        "NuGet password",
        ["<add key="],
        r#"<add key="(?:ClearText)?Password"\s+value="(?P<s>[^"]{4,})""#,
        not_placeholder
    ),
    named!(
        "xml-secret-element",
        "secret in XML",
        ["password>", "passwd>", "secret>", "token>", "key>", "pass>"],
        r"<(?P<k>[A-Za-z_:.-]*(?i-u:password|passwd|pass|secret|token|apikey|api_key|privatekey|private_key|secretkey|secret_key|accesskey|access_key))>(?P<s>[^<\s][^<]{0,300})</",
        xml_secret
    ),
    named!(
        "authorization-bearer",
        "Bearer token",
        ["bearer"],
        r"\b(?i-u:bearer)\s+(?P<s>[A-Za-z0-9._~+/=-]{8,})",
        random
    ),
    named!(
        "authorization-basic",
        "Basic credentials",
        ["basic"],
        r"\b(?i-u:basic)\s+(?P<s>[A-Za-z0-9+/]{8,}={0,2})",
        random
    ),
    named!(
        "authorization-token",
        "token",
        ["token"],
        r"\b(?i-u:(?:api-)?token)\s+(?P<s>[A-Za-z0-9._~+/=-]{8,})",
        random
    ),
    // ── Generic: a secret-named key with a value, then the same said in prose.
    named!(
        "secret-assignment",
        "secret-named assignment",
        [
            "token",
            "secret",
            "pass",
            "pwd",
            "key",
            "auth",
            "credential",
            "creds",
            "_pat",
            "-pat"
        ],
        concat!(
            r#"(?P<k>\b[A-Za-z0-9_.-]*(?:(?i-u:token|secret|pass|pwd|key|auth|credential|creds)[A-Za-z0-9_.-]*|(?i-u:[_-]pat)))"#,
            r#"["']?\s*(?::=|=>|\?=|\+=|[:=])\s*"#,
            // A bracketed value (`[abc, def]`, a JSON array) goes whole, brackets
            // and all: the unquoted class stops at `]`, so it would take `[abc` and
            // leave `[REDACTED]]` (and `, def]` readable) behind.
            r#"(?:"(?P<s1>[^"\n]*)"|'(?P<s2>[^'\n]*)'|(?P<s3>\[[^\[\]\n]*\])|(?P<s4>[^\s,;&"'}\])]+))"#,
        ),
        assignment
    ),
    named!(
        "secret-in-prose",
        "secret in prose",
        ["pass", "secret", "token", "key", "credential"],
        concat!(
            r"\b(?i-u:password|passwd|passphrase|passcode|secret|token|api[ _-]?key|access[ _-]?key|secret[ _-]?key|private[ _-]?key|credentials?)",
            r#"\s+(?i-u:is|was|are|would be|should be|reads|=|:)\s+[`'"]?"#,
            r#"(?P<s>[^\s`'"]{5,}[^\s`'".,;:!?)])"#,
        ),
        prose
    ),
];
