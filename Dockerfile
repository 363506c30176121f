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
RUN python manage.py collectstatic --noinput \
    && useradd --create-home --uid 1000 twin \
    && mkdir -p /app/out && chown -R twin:twin /app/out
USER twin

EXPOSE 8000
CMD ["gunicorn", "twin.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3", "--timeout", "120", "--access-logfile", "-"]
