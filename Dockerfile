# Fabric Twin web/worker image: the Django app served by gunicorn (the worker and beat services reuse it).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app

# iproute2 + frr are what the live twin drives (network namespaces + FRR daemons) when the container runs
# privileged; everything else is pure Python from requirements.txt.
RUN apt-get update \
    && apt-get install -y --no-install-recommends iproute2 frr \
    && rm -rf /var/lib/apt/lists/*

COPY requirements.txt .
RUN pip install -r requirements.txt

COPY . .
# collectstatic signs nothing: a throw-away SECRET_KEY only lets settings load (DEBUG is off by default).
RUN SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput \
    && useradd --create-home --uid 1000 twin \
    && mkdir -p /app/out /app/data && chown -R twin:twin /app/out /app/data && chmod 700 /app/data
USER twin
# gunicorn's workers are long-lived: keep database connections for a minute (settings: DB_CONN_MAX_AGE).
ENV DB_CONN_MAX_AGE=60 \
    FT_DATA_DIR=/app/data

EXPOSE 8000
CMD ["gunicorn", "twin.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", "--timeout", "120", "--access-logfile", "-"]
